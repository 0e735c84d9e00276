import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';

/** Phone viewports the back office is checked at: a common phone (390×844) and the narrowest we support. */
export const PHONE = { width: 390, height: 844 } as const;
export const NARROW_PHONE = { width: 360, height: 780 } as const;

/** A touch phone context (mobile viewport meta honoured, touch events), as a buddy's phone would be. */
export function phoneContext(browser: Browser, viewport: { width: number; height: number } = PHONE, options: BrowserContextOptions = {}): Promise<BrowserContext> {
  return browser.newContext({ viewport, isMobile: true, hasTouch: true, deviceScaleFactor: 2, ...options });
}

export interface OverflowReport {
  /** document.documentElement.scrollWidth */
  scrollWidth: number;
  viewport: number;
  /** Visible elements sticking out of the viewport sideways, not clipped by an ancestor that fits. */
  outside: string[];
  /** Scroll boxes that scroll sideways inside the page (a table cut off in a scrolling box). */
  innerScrollers: string[];
}

/**
 * What makes a page wider than the phone: the document's scroll width, the elements that stick out of
 * the viewport (unless an ancestor that fits the viewport clips them, as a map's panes are clipped by
 * the map), and boxes that scroll sideways inside the page. Invisible elements (display none, visibility
 * hidden, the visually-hidden 1 px pattern) are skipped.
 */
export function overflowReport(page: Page): Promise<OverflowReport> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const describe = (el: Element) => {
      const id = el.id ? `#${el.id}` : '';
      const testId = el.getAttribute('data-testid') ? `[data-testid=${el.getAttribute('data-testid')}]` : '';
      const cls = typeof el.className === 'string' && el.className ? `.${el.className.trim().split(/\s+/).slice(0, 2).join('.')}` : '';
      const text = (el.textContent ?? '').trim().replace(/\s+/g, ' ').slice(0, 40);
      const rect = el.getBoundingClientRect();
      return `${el.tagName.toLowerCase()}${id}${testId}${cls} [${Math.round(rect.left)}..${Math.round(rect.right)}] "${text}"`;
    };
    const clipping = (style: CSSStyleDeclaration) => ['hidden', 'clip', 'auto', 'scroll'].includes(style.overflowX);
    const invisible = (el: Element, style: CSSStyleDeclaration) => {
      if (style.visibility === 'hidden' || style.display === 'none') return true;
      const rect = el.getBoundingClientRect();
      return rect.width <= 1 || rect.height <= 1;
    };
    const clippedByFittingAncestor = (el: Element) => {
      for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
        const style = getComputedStyle(a);
        if (!clipping(style)) continue;
        const rect = a.getBoundingClientRect();
        if (rect.left >= -0.5 && rect.right <= width + 0.5) return true;
      }
      return false;
    };
    const outside: string[] = [];
    const innerScrollers: string[] = [];
    for (const el of document.body.querySelectorAll('*')) {
      const style = getComputedStyle(el);
      if (invisible(el, style)) continue;
      const rect = el.getBoundingClientRect();
      if ((rect.right > width + 0.5 || rect.left < -0.5) && !clippedByFittingAncestor(el)) outside.push(describe(el));
      // Leaflet's panes and textareas scroll or pan by design; everything else should wrap instead.
      if ((style.overflowX === 'auto' || style.overflowX === 'scroll') && el.scrollWidth > el.clientWidth + 1 && el.tagName !== 'TEXTAREA' && !el.closest('.leaflet-container')) {
        innerScrollers.push(describe(el));
      }
    }
    return { scrollWidth: document.documentElement.scrollWidth, viewport: width, outside: outside.slice(0, 15), innerScrollers: innerScrollers.slice(0, 15) };
  });
}

/** A wide screen (an admin's laptop, issue 19): lists are checked at this size in Swedish, the longer language. */
export const WIDE_SCREEN = { width: 1440, height: 900 } as const;

export interface LayoutReport extends OverflowReport {
  /** Pairs of visible controls (buttons, links drawn as buttons, selects) whose boxes intersect. */
  overlaps: string[];
  /** Controls whose own text is wider than the control: words drawn over the neighbours. */
  spilling: string[];
  /** Table header cells whose text is cut: wider than the cell, outside a clipping box, or covered by another cell. */
  clippedHeaders: string[];
  /** E-mail addresses in tables wrapped inside a word (a line of one may start only at its "@"). */
  brokenEmails: string[];
}

/**
 * Everything `overflowReport` finds, plus what makes a page unreadable without widening it (issue 19):
 * controls drawn over each other, a control's words spilling out of it (a 28 px button holding "Cancel at
 * period end"), and table headers cut off (by their cell, by a box that scrolls, or covered by a sticky
 * column). One evaluation per page, so a sweep of every route stays cheap.
 */
export async function layoutReport(page: Page): Promise<LayoutReport> {
  const [overflow, rest] = await Promise.all([
    overflowReport(page),
    page.evaluate(() => {
      const describe = (el: Element) => {
        const testId = el.getAttribute('data-testid') ? `[data-testid=${el.getAttribute('data-testid')}]` : '';
        const label = (el.getAttribute('aria-label') ?? el.getAttribute('title') ?? el.textContent ?? '').trim().replace(/\s+/g, ' ').slice(0, 40);
        const r = el.getBoundingClientRect();
        return `${el.tagName.toLowerCase()}${testId} "${label}" [${Math.round(r.left)},${Math.round(r.top)} ${Math.round(r.width)}×${Math.round(r.height)}]`;
      };
      const shown = (el: Element) => {
        const r = el.getBoundingClientRect();
        if (r.width <= 1 || r.height <= 1) return false;
        const style = getComputedStyle(el);
        if (style.visibility === 'hidden' || style.display === 'none' || Number(style.opacity) === 0) return false;
        // Inside a closed drawer, an inert region, or hidden from everyone.
        return !el.closest('[inert], [aria-hidden="true"], .leaflet-container');
      };
      /** The part of the element's box its clipping ancestors let through. */
      const visibleBox = (el: Element) => {
        const r = el.getBoundingClientRect();
        let [left, top, right, bottom] = [r.left, r.top, r.right, r.bottom];
        for (let a = el.parentElement; a && a !== document.documentElement; a = a.parentElement) {
          const style = getComputedStyle(a);
          if (style.overflowX === 'visible' && style.overflowY === 'visible') continue;
          const c = a.getBoundingClientRect();
          if (style.overflowX !== 'visible') [left, right] = [Math.max(left, c.left), Math.min(right, c.right)];
          if (style.overflowY !== 'visible') [top, bottom] = [Math.max(top, c.top), Math.min(bottom, c.bottom)];
        }
        return { left, top, right, bottom };
      };
      const controls = [...document.querySelectorAll('button, [role="button"], a.bo-btn, select, input[type="submit"], input[type="button"]')].filter(shown);
      const boxes = controls.map((el) => ({ el, box: visibleBox(el) })).filter(({ box }) => box.right - box.left > 1 && box.bottom - box.top > 1);
      const overlaps: string[] = [];
      for (let i = 0; i < boxes.length; i++) {
        for (let j = i + 1; j < boxes.length; j++) {
          const a = boxes[i]!;
          const b = boxes[j]!;
          if (a.el.contains(b.el) || b.el.contains(a.el)) continue;
          // Shared borders (button groups, segmented controls) overlap by a pixel; that is not covering.
          const w = Math.min(a.box.right, b.box.right) - Math.max(a.box.left, b.box.left);
          const h = Math.min(a.box.bottom, b.box.bottom) - Math.max(a.box.top, b.box.top);
          if (w > 2 && h > 2) overlaps.push(`${describe(a.el)} × ${describe(b.el)}`);
        }
      }
      const spilling: string[] = [];
      for (const { el } of boxes) {
        if (el.tagName === 'SELECT') continue;
        // Sideways: a selected tab's underline may hang below its button, but words run into the neighbours.
        if (el.scrollWidth > el.clientWidth + 1) {
          const style = getComputedStyle(el);
          // A control that clips its own text on purpose with an ellipsis says so.
          if (style.textOverflow === 'ellipsis' && style.overflowX !== 'visible') continue;
          spilling.push(`${describe(el)} text ${el.scrollWidth} px wide in ${el.clientWidth}`);
        }
      }
      const clippedHeaders: string[] = [];
      for (const th of document.querySelectorAll('th')) {
        if (!shown(th) || !(th.textContent ?? '').trim()) continue;
        const cell = th.getBoundingClientRect();
        const seen = visibleBox(th);
        // The box of the words a person sees (a visually hidden label, 1 px wide somewhere, is not one).
        const text = { left: Infinity, right: -Infinity, top: Infinity, bottom: -Infinity };
        const walker = document.createTreeWalker(th, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          const parent = node.parentElement!;
          const p = parent.getBoundingClientRect();
          if (!(node.textContent ?? '').trim() || p.width <= 1 || p.height <= 1) continue;
          const range = document.createRange();
          range.selectNodeContents(node);
          const r = range.getBoundingClientRect();
          [text.left, text.right, text.top, text.bottom] = [Math.min(text.left, r.left), Math.max(text.right, r.right), Math.min(text.top, r.top), Math.max(text.bottom, r.bottom)];
        }
        if (text.right === -Infinity) continue;
        const problem =
          th.scrollWidth > th.clientWidth + 1
            ? `text ${th.scrollWidth} px in ${th.clientWidth}`
            : text.right > seen.right + 1 || text.left < seen.left - 1 || cell.right > seen.right + 1
              ? `cut at ${Math.round(seen.right)} (text to ${Math.round(text.right)})`
              : (() => {
                  // Covered by another cell (a sticky column drawn over it): what is at the text's end is not this header.
                  const x = Math.min(text.right - 2, seen.right - 2);
                  const y = (text.top + text.bottom) / 2;
                  if (x < 0 || y < 0 || x > innerWidth || y > innerHeight) return '';
                  const hit = document.elementFromPoint(x, y);
                  return hit && !th.contains(hit) && hit.closest('th, td') && hit.closest('th, td') !== th ? `covered by ${describe(hit.closest('th, td')!)}` : '';
                })();
        if (problem) clippedHeaders.push(`${describe(th)}: ${problem}`);
      }
      const brokenEmails: string[] = [];
      const email = /[^\s@]+@[^\s@]+\.[^\s@]+/;
      for (const cell of document.querySelectorAll('td')) {
        if (!email.test(cell.textContent ?? '') || !shown(cell)) continue;
        // Where each line of the cell's text starts: the characters whose box is below the one before.
        const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
        let previous: { top: number; char: string } | null = null;
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          const text = node.textContent ?? '';
          for (let i = 0; i < text.length; i++) {
            const range = document.createRange();
            range.setStart(node, i);
            range.setEnd(node, i + 1);
            const r = range.getBoundingClientRect();
            if (r.width === 0 && r.height === 0) continue;
            if (previous && r.top > previous.top + r.height / 2 && /\S/.test(previous.char) && /[^\s@]/.test(text[i]!)) {
              brokenEmails.push(`${describe(cell)}: a line starts at "${text.slice(i, i + 12)}"`);
            }
            previous = { top: r.top, char: text[i]! };
          }
        }
      }
      return { overlaps: overlaps.slice(0, 15), spilling: spilling.slice(0, 15), clippedHeaders: clippedHeaders.slice(0, 15), brokenEmails: brokenEmails.slice(0, 15) };
    }),
  ]);
  return { ...overflow, ...rest };
}

/** A layout report's findings as lines, empty when the page is fine. */
export function layoutProblems(report: LayoutReport): string[] {
  const lines: string[] = [];
  const list = (title: string, items: string[]) => {
    if (items.length) lines.push(`  ${title}: ${items.join('\n    ')}`);
  };
  if (report.scrollWidth > report.viewport) lines.push(`  scrollWidth ${report.scrollWidth} > ${report.viewport}`);
  list('outside', report.outside);
  list('scrolls sideways', report.innerScrollers);
  list('overlapping controls', report.overlaps);
  list('text spilling out of a control', report.spilling);
  list('clipped headers', report.clippedHeaders);
  list('e-mails broken inside a word', report.brokenEmails);
  return lines;
}
