import { lazy, Suspense, useEffect, useRef, useState, type KeyboardEvent, type MouseEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, Outlet, useLocation, useNavigate } from 'react-router-dom';
import styled from 'styled-components';
import { SIDEBAR, isExternalLink, sidebarGroups, visibleSidebar, type SidebarEntry } from '../../shared/route-table.ts';
import { LIVE_CHANGE_EVENT, type LiveChange } from '../../shared/live.ts';
import { fullName, useSession } from '../session.ts';
import { trpc } from '../trpc.ts';
import { Avatar } from '../components/controls.tsx';
import { SpriteIcon } from '../components/sprite-icon.tsx';
import { AppLink } from '../components/app-link.tsx';
import { PageSpinner } from '../components/page-spinner.tsx';
import { useConfirm } from './confirm.tsx';
import { ICONS } from './icons.ts';
import { LanguageSwitch } from './language-switch.tsx';
import { usePublicConfig } from '../public-config.tsx';
import { WIDE_MEDIA, WIDE_QUERY } from '../components/breakpoints.ts';
// The phone layout of the shell (drawer, header, paddings): static CSS, linked with this chunk (ADR 021).
import './app-shell-phone.css';

export const DEFAULT_AVATAR = '/default-avatar.svg';
const SIDEBAR_KEY = 'sidebar-collapsed';

const Frame = styled.div`
  display: grid;
  grid-template-columns: auto 1fr;
  grid-template-rows: auto 1fr auto;
  grid-template-areas: 'header header' 'sidebar main' 'sidebar footer';
  min-height: 100vh;
  background: var(--bgColor-default, #fff);
`;

const Header = styled.header`
  grid-area: header;
  display: flex;
  align-items: center;
  gap: 12px;
  padding: 8px 16px;
  background: var(--bgColor-inset, #f6f8fa);
  border-bottom: 1px solid var(--borderColor-default, #d0d7de);
  position: sticky;
  top: 0;
  z-index: 10;
`;

const Brand = styled(Link)`
  font-weight: 600;
  font-size: 16px;
  color: var(--fgColor-default, #1f2328);
  text-decoration: none;
  margin-right: auto;
`;

const IconButton = styled.button`
  display: inline-flex;
  align-items: center;
  justify-content: center;
  width: 32px;
  height: 32px;
  border-radius: 6px;
  border: 1px solid var(--borderColor-default, #d0d7de);
  background: var(--bgColor-default, #fff);
  color: var(--fgColor-muted, #59636e);
  cursor: pointer;
  flex-shrink: 0;
`;

/**
 * The sidebar: a column of the grid on wide screens (collapsible to icons), a drawer over the page on
 * phones (app-shell-phone.css). Which one is CSS, so the server's HTML is laid out right before any
 * script runs.
 */
const Side = styled.nav<{ $collapsed: boolean }>`
  grid-area: sidebar;
  border-right: 1px solid var(--borderColor-default, #d0d7de);
  padding: 8px 4px;
  overflow-x: hidden;
  ${WIDE_MEDIA} {
    width: ${(p) => (p.$collapsed ? '56px' : '248px')};
    transition: width 120ms ease;
    ${(p) => (p.$collapsed ? '[data-label]{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);}' : '')}
  }
`;

const Main = styled.main`
  grid-area: main;
  padding: 24px 32px;
  min-width: 0;
`;

const Footer = styled.footer`
  grid-area: footer;
  display: flex;
  justify-content: space-between;
  gap: 16px;
  padding: 12px 32px;
  font-size: 12px;
  color: var(--fgColor-muted, #59636e);
  border-top: 1px solid var(--borderColor-muted, #d8dee4);
`;

// The sidebar is plain links styled like Primer's NavList: NavList is built on ActionList and brings
// it (and its overlay machinery) to every signed-in page for what is a list of links. The links are styled
// from the list, not each by a class of its own: every signed-in page's HTML carries ~25 of them.
const NavItems = styled.ul`
  list-style: none;
  margin: 0;
  padding: 0;
  ul {
    padding-left: 24px;
  }
  a {
    display: flex;
    align-items: center;
    gap: 8px;
    min-height: 32px;
    margin: 2px 0;
    padding: 6px 8px;
    border-radius: 6px;
    font-size: 14px;
    line-height: 20px;
    color: var(--fgColor-default, #1f2328);
    text-decoration: none;
    white-space: nowrap;
  }
  a > svg {
    flex-shrink: 0;
    color: var(--fgColor-muted, #59636e);
  }
  a:hover {
    background: var(--control-transparent-bgColor-hover, #d0d7de52);
    text-decoration: none;
  }
  a[aria-current='page'] {
    font-weight: 600;
    background: var(--control-transparent-bgColor-selected, #d0d7de3d);
  }
  a:focus-visible {
    outline: 2px solid var(--focus-outlineColor, #0969da);
    outline-offset: -2px;
  }
`;

/**
 * The sidebar's entries under their groups' headings (daily work, people, catalogues, settings), each
 * group a list named by its heading. The groups are declared with the routes and the entities' screens.
 */
function SidebarGroups({ entries, ...rest }: { entries: SidebarEntry[]; pathname: string; collapsed: boolean; counts: Record<string, number>; navigate: (to: string) => void }) {
  const { t } = useTranslation();
  return (
    <>
      {sidebarGroups(entries).map(({ group, entries: groupEntries }) => (
        <section key={group} data-nav-group={group}>
          <h2 className="bo-nav-group" id={`nav-group-${group}`}>
            {t(`shell.navGroups.${group}`)}
          </h2>
          <SidebarItems entries={groupEntries} labelledBy={`nav-group-${group}`} {...rest} />
        </section>
      ))}
    </>
  );
}

// The account menu's overlay (Primer ActionMenu) loads on the first click; the button is server-rendered.
const AccountMenuOverlay = lazy(() => import('./account-menu.tsx'));

const AccountButton = styled.button`
  display: inline-flex;
  align-items: center;
  gap: 8px;
  background: transparent;
  border: 0;
  padding: 4px 6px;
  border-radius: 6px;
  font: inherit;
  font-size: 14px;
  color: var(--fgColor-default, #1f2328);
  cursor: pointer;
  &:hover {
    background: var(--bgColor-neutral-muted, #afb8c133);
  }
`;

const focusableIn = (root: HTMLElement) => [...root.querySelectorAll<HTMLElement>('a[href], button:not([disabled])')].filter((el) => el.getClientRects().length > 0);

/** `collapsed`: labels are hidden, so each link's title shows its name on hover (shown, it would repeat the label). */
function SidebarItems({
  entries,
  pathname,
  collapsed,
  counts = {},
  navigate,
  labelledBy,
}: {
  entries: SidebarEntry[];
  labelledBy?: string;
  pathname: string;
  collapsed: boolean;
  counts?: Record<string, number>;
  navigate: (to: string) => void;
}) {
  const { t } = useTranslation();
  return (
    <NavItems aria-labelledby={labelledBy}>
      {entries.map((entry) => {
        const Icon = ICONS[entry.icon];
        const label = t(entry.titleKey);
        const visual = Icon ? <Icon /> : null;
        if (isExternalLink(entry.path)) {
          return (
            <li key={entry.path}>
              <a href={entry.path} target="_blank" rel="noopener noreferrer" aria-label={t('shell.externalLink', { name: label })}>
                {visual}
                <span data-label="">{label}</span>
              </a>
            </li>
          );
        }
        const current = entry.path === '/' ? pathname === '/' : pathname === entry.path || pathname.startsWith(entry.path + '/');
        return (
          <li key={entry.path}>
            <AppLink to={entry.path} navigate={navigate} aria-current={current ? 'page' : undefined} title={collapsed ? label : undefined}>
              {visual}
              <span data-label="">{label}</span>
              {counts[entry.path] ? (
                <span className="bo-nav-count" data-testid={`sidebar-count-${entry.path.slice(1)}`}>
                  {t('shell.newCount', { count: counts[entry.path] })}
                </span>
              ) : null}
            </AppLink>
            {entry.children && entry.children.length > 0 && <SidebarItems entries={entry.children} pathname={pathname} collapsed={collapsed} navigate={navigate} />}
          </li>
        );
      })}
    </NavItems>
  );
}

/**
 * How many live changes each counting sidebar entry (`counts`) has had since it was last open: the dispatch
 * board's new requests. The changes come from the live-updates module as window events (ADR 037).
 */
function useLiveCounts(entries: SidebarEntry[], pathname: string): Record<string, number> {
  const [counts, setCounts] = useState<Record<string, number>>({});
  // Read by the listener, which is added once.
  const now = useRef({ entries, pathname });
  now.current = { entries, pathname };
  useEffect(() => {
    const onChange = (event: Event) => {
      const change = (event as CustomEvent<LiveChange>).detail;
      const hits = now.current.entries.filter((e) => e.counts?.entity === change.entity && e.counts.action === change.action && e.path !== now.current.pathname);
      if (hits.length) setCounts((was) => ({ ...was, ...Object.fromEntries(hits.map((e) => [e.path, (was[e.path] ?? 0) + 1])) }));
    };
    window.addEventListener(LIVE_CHANGE_EVENT, onChange);
    return () => window.removeEventListener(LIVE_CHANGE_EVENT, onChange);
  }, []);
  // Opening the entry's page is seeing what was new.
  useEffect(() => setCounts((was) => (was[pathname] ? { ...was, [pathname]: 0 } : was)), [pathname]);
  return counts;
}

/** The sidebar collapsed to icons on wide screens, remembered in the browser. */
function useCollapsedSidebar() {
  const [collapsed, setCollapsed] = useState(false);

  useEffect(() => {
    setCollapsed(window.localStorage.getItem(SIDEBAR_KEY) === '1');
  }, []);

  const toggle = () => {
    setCollapsed((value) => {
      window.localStorage.setItem(SIDEBAR_KEY, value ? '0' : '1');
      return !value;
    });
  };

  return { collapsed, toggle };
}

/** The phone's drawer: open or not, where focus goes, and how it closes. */
function useDrawer(pathname: string) {
  const [drawerOpen, setDrawerOpen] = useState(false);
  const menuButton = useRef<HTMLButtonElement>(null);
  const closeButton = useRef<HTMLButtonElement>(null);
  const sidebar = useRef<HTMLElement>(null);
  // Where focus goes once the drawer has closed (the page behind it is inert until then).
  const focusAfterClose = useRef<'menu' | 'main' | null>(null);

  // The drawer closes on navigation (back and forward included).
  useEffect(() => setDrawerOpen(false), [pathname]);

  // While open: focus in the drawer, the page behind it still, and closed if the window widens.
  useEffect(() => {
    if (!drawerOpen) {
      if (focusAfterClose.current === 'menu') menuButton.current?.focus();
      else if (focusAfterClose.current === 'main') document.getElementById('main')?.focus({ preventScroll: true });
      focusAfterClose.current = null;
      return;
    }
    closeButton.current?.focus();
    const wide = window.matchMedia(WIDE_QUERY);
    const onWidth = () => wide.matches && setDrawerOpen(false);
    wide.addEventListener('change', onWidth);
    const overflow = document.body.style.overflow;
    document.body.style.overflow = 'hidden';
    return () => {
      wide.removeEventListener('change', onWidth);
      document.body.style.overflow = overflow;
    };
  }, [drawerOpen]);

  const closeDrawer = () => {
    focusAfterClose.current = 'menu';
    setDrawerOpen(false);
  };

  // Focus stays in the open drawer: Tab from the last item goes to the first, Shift+Tab the other way.
  const onDrawerKeyDown = (event: KeyboardEvent<HTMLElement>) => {
    if (!drawerOpen || !sidebar.current) return;
    if (event.key === 'Escape') {
      event.preventDefault();
      closeDrawer();
      return;
    }
    if (event.key !== 'Tab') return;
    const items = focusableIn(sidebar.current);
    const first = items[0];
    const last = items[items.length - 1];
    if (event.shiftKey && document.activeElement === first) {
      event.preventDefault();
      last?.focus();
    } else if (!event.shiftKey && document.activeElement === last) {
      event.preventDefault();
      first?.focus();
    }
  };

  // A link chosen in the drawer closes it (even the current page's) and leaves focus on the content.
  const onDrawerClick = (event: MouseEvent<HTMLElement>) => {
    if (!drawerOpen || !(event.target as Element).closest('a')) return;
    focusAfterClose.current = 'main';
    setDrawerOpen(false);
  };

  return { drawerOpen, setDrawerOpen, menuButton, closeButton, sidebar, closeDrawer, onDrawerKeyDown, onDrawerClick };
}

/** The signed-in user's button, and the account menu it opens (sign out among its items). */
function AccountMenu() {
  const { t } = useTranslation();
  const { user } = useSession();
  const [menuOpen, setMenuOpen] = useState(false);
  const accountButton = useRef<HTMLButtonElement>(null);
  // What this browser kept of the user for offline use goes with the session (ADR 042).
  const logout = trpc.auth.logout.useMutation({
    onSettled: () => void import('./offline-worker.ts').then((worker) => worker.forgetOfflineData()).finally(() => window.location.assign('/login')),
  });
  const confirm = useConfirm();
  const name = fullName(user);
  // Steps kept on this phone and not yet sent go with the session: said, with their number, before (issue 33).
  const signOut = async () => {
    setMenuOpen(false);
    const kept = user ? await import('./offline-worker.ts').then((worker) => worker.keptStepCount(String(user.id))).catch(() => 0) : 0;
    if (kept > 0) {
      const leave = await confirm({
        title: t('shell.keptSteps.title'),
        message: t('shell.keptSteps.message', { count: kept }),
        yes: t('shell.keptSteps.signOut'),
        no: t('shell.keptSteps.stay'),
        danger: true,
        focus: 'no',
      });
      if (!leave) return;
    }
    logout.mutate();
  };

  return (
    <>
      <AccountButton
        ref={accountButton}
        className="app-account"
        type="button"
        aria-label={t('shell.accountMenu', { name })}
        aria-haspopup="true"
        aria-expanded={menuOpen}
        onClick={() => setMenuOpen((open) => !open)}
        data-testid="account-menu"
      >
        <Avatar src={user?.profile_image || DEFAULT_AVATAR} size={28} alt={t('shell.avatarAlt', { name })} />
        <span data-testid="user-full-name">{name}</span>
      </AccountButton>
      {menuOpen && (
        <Suspense fallback={null}>
          <AccountMenuOverlay anchorRef={accountButton} onClose={() => setMenuOpen(false)} onLogout={() => void signOut()} loggingOut={logout.isPending} />
        </Suspense>
      )}
    </>
  );
}

/** The header: the sidebar's toggle (wide) or the drawer's button (phone), the brand, the language and the account. */
function ShellHeader({ sidebar, drawer }: { sidebar: ReturnType<typeof useCollapsedSidebar>; drawer: ReturnType<typeof useDrawer> }) {
  const { t } = useTranslation();
  const { collapsed, toggle } = sidebar;
  const { drawerOpen, setDrawerOpen, menuButton } = drawer;
  return (
    <Header className="app-header" inert={drawerOpen}>
      <IconButton
        type="button"
        className="wide-only app-icon-button"
        onClick={toggle}
        aria-label={t(collapsed ? 'shell.expandSidebar' : 'shell.collapseSidebar')}
        aria-expanded={!collapsed}
        aria-controls="sidebar"
      >
        <SpriteIcon name={collapsed ? 'sidebar-expand' : 'sidebar-collapse'} />
      </IconButton>
      <IconButton
        ref={menuButton}
        type="button"
        className="phone-only app-icon-button"
        onClick={() => setDrawerOpen(true)}
        aria-label={t('phone.openMenu')}
        aria-expanded={drawerOpen}
        aria-controls="sidebar"
        data-testid="menu-button"
      >
        <SpriteIcon name="three-bars" />
      </IconButton>
      <Brand className="app-brand" to="/">
        {t('app.name')}
      </Brand>
      <LanguageSwitch />
      <AccountMenu />
    </Header>
  );
}

export function AppShell() {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  const navigate = useNavigate();
  const { roles } = useSession();
  const { version } = usePublicConfig();
  const sidebarState = useCollapsedSidebar();
  const drawer = useDrawer(pathname);
  const { collapsed } = sidebarState;
  const { drawerOpen, setDrawerOpen, closeButton, sidebar, closeDrawer, onDrawerKeyDown, onDrawerClick } = drawer;

  const entries = visibleSidebar(SIDEBAR, roles);
  const counts = useLiveCounts(entries, pathname);

  return (
    <Frame className="app-frame">
      <a className="skip-link" href="#main">
        {t('shell.skipToContent')}
      </a>
      <ShellHeader sidebar={sidebarState} drawer={drawer} />
      {drawerOpen && <div className="phone-only drawer-backdrop" aria-hidden="true" onClick={() => setDrawerOpen(false)} data-testid="drawer-backdrop" />}
      <Side
        ref={sidebar}
        id="sidebar"
        aria-label={t('shell.mainNavigation')}
        $collapsed={collapsed}
        data-collapsed={collapsed}
        data-open={drawerOpen}
        onKeyDown={onDrawerKeyDown}
        onClick={onDrawerClick}
      >
        <div className="phone-only drawer-head">
          <span>{t('app.name')}</span>
          <IconButton ref={closeButton} type="button" className="app-icon-button" onClick={closeDrawer} aria-label={t('phone.closeMenu')} data-testid="drawer-close">
            <SpriteIcon name="x" />
          </IconButton>
        </div>
        <SidebarGroups entries={entries} pathname={pathname} collapsed={collapsed} counts={counts} navigate={navigate} />
      </Side>
      <Main id="main" tabIndex={-1} inert={drawerOpen}>
        <Suspense fallback={<PageSpinner />}>
          <Outlet />
        </Suspense>
      </Main>
      <Footer className="app-footer" inert={drawerOpen}>
        <span>{t('app.tagline')}</span>
        <span data-testid="app-version">{t('app.version', { version })}</span>
      </Footer>
    </Frame>
  );
}
