import { describe, expect, it } from 'vitest';
import { serializeState } from '../../client/ssr-state.ts';
import { escapeHtml, renderDocument } from '../../server/ssr/document.ts';

describe('HTML-safe state serialization', () => {
  it('cannot close the script element or open a comment, and survives a round trip', () => {
    const value = { name: '</script><script>alert(1)</script>', note: '<!-- x', sep: 'a\u2028b\u2029c', amp: 'a&b' };
    const out = serializeState(value);
    expect(out).not.toMatch(/<|>|\u2028|\u2029|&/);
    expect(JSON.parse(out)).toEqual(value);
  });

  it('escapes the title and attributes of the document', () => {
    expect(escapeHtml(`"<x>'&`)).toBe('&quot;&lt;x&gt;&#39;&amp;');
    const html = renderDocument({ lang: 'en', title: '<b>', nonce: 'n0', head: '<style data-x>a{}</style>', html: '', state: '{}', stateId: '__BO_STATE__', styles: [], scripts: ['/a.js'], preloads: [] });
    expect(html).toContain('<title>&lt;b&gt;</title>');
    expect(html).toContain('<style nonce="n0" data-x>');
    expect(html).toContain('<script type="module" src="/a.js" nonce="n0"></script>');
  });
});
