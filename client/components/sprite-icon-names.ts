/**
 * The octicons drawn from one cached SVG sprite (ADR 024), by name: the sidebar's (the names the route
 * table uses; shared/ stays free of React) and those of the shell and the list screen. Inline, the same
 * drawings were ~20 KB of every signed-in page's HTML and ~6 KB of its first JavaScript; as CSS masks they
 * made the first style recalculation slow (each one an SVG document). vite.config.ts `iconSprite` builds
 * the sprite from @primer/octicons-react's 16 px drawings.
 */
export const SPRITE_ICON_OCTICONS: Record<string, string> = {
  home: 'HomeIcon',
  calendar: 'CalendarIcon',
  organization: 'OrganizationIcon',
  checklist: 'ChecklistIcon',
  megaphone: 'MegaphoneIcon',
  tag: 'TagIcon',
  tools: 'ToolsIcon',
  'mortar-board': 'MortarBoardIcon',
  'list-unordered': 'ListUnorderedIcon',
  clock: 'ClockIcon',
  globe: 'GlobeIcon',
  star: 'StarIcon',
  package: 'PackageIcon',
  people: 'PeopleIcon',
  'shield-lock': 'ShieldLockIcon',
  rocket: 'RocketIcon',
  location: 'LocationIcon',
  beaker: 'BeakerIcon',
  briefcase: 'BriefcaseIcon',
  external: 'LinkExternalIcon',
  sun: 'SunIcon',
  project: 'ProjectIcon',
  stack: 'StackIcon',
  container: 'ContainerIcon',
  history: 'HistoryIcon',
  'three-bars': 'ThreeBarsIcon',
  'sidebar-collapse': 'SidebarCollapseIcon',
  'sidebar-expand': 'SidebarExpandIcon',
  plus: 'PlusIcon',
  search: 'SearchIcon',
  download: 'DownloadIcon',
  pencil: 'PencilIcon',
  trash: 'TrashIcon',
  x: 'XIcon',
  'triangle-up': 'TriangleUpIcon',
  'triangle-down': 'TriangleDownIcon',
  'chevron-left': 'ChevronLeftIcon',
  'chevron-right': 'ChevronRightIcon',
  filter: 'FilterIcon',
};

/** The module whose default export is the sprite's address (`/static/icons-<hash>.svg`, shared/static-assets.ts). */
export const ICON_SPRITE_MODULE = 'virtual:icon-sprite';
