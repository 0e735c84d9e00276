import { createElement, type ComponentType } from 'react';
import { NAV_ICON_OCTICONS } from './nav-icon-names.ts';
import 'virtual:nav-icons.css';

/** A sidebar icon: an empty element the generated style sheet paints (nav-icon-names.ts). */
function navIcon(name: string): ComponentType {
  const NavIcon = () => createElement('span', { className: 'nav-icon', 'data-icon': name, 'aria-hidden': true });
  NavIcon.displayName = `NavIcon(${name})`;
  return NavIcon;
}

/** Icon names used by the route table, each a component the sidebar renders. */
export const ICONS: Record<string, ComponentType> = Object.fromEntries(Object.keys(NAV_ICON_OCTICONS).map((name) => [name, navIcon(name)]));
