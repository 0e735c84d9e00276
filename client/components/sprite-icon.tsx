import type { ComponentType } from 'react';
import spriteUrl from 'virtual:icon-sprite';
import { SPRITE_ICON_OCTICONS } from './sprite-icon-names.ts';

/**
 * An octicon drawn by reference from the sprite (sprite-icon-names.ts): a few dozen bytes of markup, no
 * drawing in the page or in the JavaScript. Decorative, like Primer's octicons without a label.
 */
export function SpriteIcon({ name, className = 'octicon' }: { name: string; className?: string | null }) {
  return (
    // Sized by the style sheet (svg.octicon): width and height on each of a list's fifty icons were ~1 KB.
    // `className={null}` where the container's style sheet sizes them (a list's row actions).
    <svg className={className ?? undefined} aria-hidden="true">
      <use href={`${spriteUrl}#${name}`} />
    </svg>
  );
}

/** A sprite icon as a component, where an octicon component is expected (a button's `leadingVisual`). */
export function spriteIcon(name: keyof typeof SPRITE_ICON_OCTICONS & string): ComponentType {
  const Drawn = () => <SpriteIcon name={name} />;
  Drawn.displayName = `SpriteIcon(${name})`;
  return Drawn;
}
