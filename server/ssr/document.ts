import { OFFLINE_ASSETS_ID } from '../../shared/ssr-contract.ts';

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
  /** An offline route's on-demand chunks, for the service worker (ADR 048). */
  offline?: string[];
}

/**
 * Starts the page's scripts once its style sheets are in (ADR 024): an inline classic script waits for
 * the style sheets before it, and it adds the module preloads and the entry only then. Fetched from the
 * `<head>`, ~150 KB of modules shared a slow link with the one style sheet the first paint waits for.
 * The page reads and works (links, forms) before them either way; React takes over when they arrive.
 */
function startScriptsAfterStyles(scripts: string[], preloads: string[], nonce: string): string {
  const code = `(function(d,n){${JSON.stringify(preloads)}.forEach(function(h){var l=d.createElement('link');l.rel='modulepreload';l.href=h;d.head.appendChild(l)});${JSON.stringify(scripts)}.forEach(function(u){var s=d.createElement('script');s.type='module';s.src=u;s.nonce=n;d.body.appendChild(s)})})(document,${JSON.stringify(nonce)})`;
  return `<script nonce="${escapeHtml(nonce)}">${code.replace(/</g, '\\u003c')}</script>`;
}

export function renderDocument(p: DocumentParts): string {
  const n = escapeHtml(p.nonce);
  // With a style sheet to wait for, the scripts start after it; with none (inline styles), at once.
  const deferScripts = p.styles.length > 0;
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
    ...(deferScripts ? [] : p.preloads.map((href) => `<link rel="modulepreload" href="${escapeHtml(href)}">`)),
    p.head.replace(/<style /g, `<style nonce="${n}" `),
    '</head>',
    '<body>',
    `<div id="root">${p.html}</div>`,
    `<script id="${escapeHtml(p.stateId)}" type="application/json" nonce="${n}">${p.state}</script>`,
    ...(p.offline?.length ? [`<script id="${OFFLINE_ASSETS_ID}" type="application/json" nonce="${n}">${JSON.stringify(p.offline).replace(/</g, '\\u003c')}</script>`] : []),
    ...(deferScripts ? [startScriptsAfterStyles(p.scripts, p.preloads, p.nonce)] : p.scripts.map((src) => `<script type="module" src="${escapeHtml(src)}" nonce="${n}"></script>`)),
    '</body>',
    '</html>',
  ].join('');
}
