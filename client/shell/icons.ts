import type { ComponentType } from 'react';
import { spriteIcon } from '../components/sprite-icon.tsx';

/** Icon names used by the route table, each a component the sidebar renders (drawn from the sprite). */
export const ICONS: Record<string, ComponentType> = Object.fromEntries(
  [
    'home',
    'calendar',
    'organization',
    'checklist',
    'megaphone',
    'tag',
    'tools',
    'mortar-board',
    'list-unordered',
    'clock',
    'globe',
    'star',
    'package',
    'people',
    'shield-lock',
    'rocket',
    'location',
    'beaker',
    'briefcase',
    'external',
    'sun',
    'project',
    'stack',
    'container',
    'history',
  ].map((name) => [name, spriteIcon(name)]),
);
