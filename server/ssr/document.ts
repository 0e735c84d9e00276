/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!);
}

export interface DocumentParts {
  lang: string;
  title: string;
  nonce: string;
  head: string;
  html: string;
  /** JSON for the page's script, in `<script type="application/json" id=stateId>` (already HTML-safe). */
  state: string;
  stateId: string;
  styles: string[];
  inlineStyles?: string[];
  scripts: string[];
  preloads: string[];
}

export function renderDocument(p: DocumentParts): string {
  const n = escapeHtml(p.nonce);
  return [
    '<!doctype html>',
    `<html lang="${escapeHtml(p.lang)}">`,
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(p.title)}</title>`,
    '<link rel="icon" href="/favicon.svg" type="image/svg+xml">',
    ...p.styles.map((href) => `<link rel="stylesheet" href="${escapeHtml(href)}">`),
    ...(p.inlineStyles ?? []).map((css) => `<style nonce="${n}">${css.replace(/<\/style/gi, '<\\/style')}</style>`),
    ...p.preloads.map((href) => `<link rel="modulepreload" href="${escapeHtml(href)}">`),
    p.head.replace(/<style /g, `<style nonce="${n}" `),
    '</head>',
    '<body>',
    `<div id="root">${p.html}</div>`,
    `<script id="${escapeHtml(p.stateId)}" type="application/json" nonce="${n}">${p.state}</script>`,
    ...p.scripts.map((src) => `<script type="module" src="${escapeHtml(src)}" nonce="${n}"></script>`),
    '</body>',
    '</html>',
  ].join('');
}
