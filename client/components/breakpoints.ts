/**
 * The one breakpoint of the layout (ADR 021): below 768 px the back office is laid out for a phone —
 * the sidebar is a drawer, lists are cards, calendars a day agenda. Media queries in CSS, not width
 * measured in JavaScript, so the server's HTML already has the right layout before hydration.
 */
export const PHONE_MEDIA = '@media (max-width: 767.98px)';
export const WIDE_MEDIA = '@media (min-width: 768px)';
/** For matchMedia, where state must follow the width (a drawer left open when the window widens). */
export const WIDE_QUERY = '(min-width: 768px)';
