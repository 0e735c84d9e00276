/**
 * The octicons of the sidebar, by the names the route table uses (shared/ stays free of React). They are
 * drawn by a style sheet generated at build (vite.config.ts `navIcons`), not by components: nineteen
 * inline SVGs were ~15 KB of every signed-in page's HTML and ~4 KB of its first JavaScript (ADR 024).
 */
export const NAV_ICON_OCTICONS: Record<string, string> = {
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
};

export const NAV_ICONS_CSS = 'virtual:nav-icons.css';
