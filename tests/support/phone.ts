import type { Browser, BrowserContext, Page } from 'playwright-core';

/** Phone viewports the back office is checked at: a common phone (390×844) and the narrowest we support. */
export const PHONE = { width: 390, height: 844 } as const;
export const NARROW_PHONE = { width: 360, height: 780 } as const;

/** A touch phone context (mobile viewport meta honoured, touch events), as a buddy's phone would be. */
export function phoneContext(browser: Browser, viewport: { width: number; height: number } = PHONE): Promise<BrowserContext> {
  return browser.newContext({ viewport, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
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
