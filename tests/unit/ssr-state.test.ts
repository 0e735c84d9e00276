import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { packRecords, serializeState, unpackRecords } from '../../client/ssr-state.ts';
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
    const html = renderDocument({
      lang: 'en',
      title: '<b>',
      nonce: 'n0',
      head: '<style data-x>a{}</style>',
      html: '',
      state: '{}',
      stateId: '__BO_STATE__',
      styles: [],
      scripts: ['/a.js'],
      preloads: [],
    });
    expect(html).toContain('<title>&lt;b&gt;</title>');
    expect(html).toContain('<style nonce="n0" data-x>');
    expect(html).toContain('<script type="module" src="/a.js" nonce="n0"></script>');
  });
});

describe('where a page starts its scripts', () => {
  const parts = {
    lang: 'en',
    title: 't',
    nonce: 'n0',
    head: '',
    html: '<p>x</p>',
    state: '{}',
    stateId: '__BO_STATE__',
    scripts: ['/assets/entry.js'],
    preloads: ['/assets/a.js', '/assets/b.js'],
  };

  it('with a style sheet to wait for: from an inline script after it, so the modules do not share the link with it', () => {
    const html = renderDocument({ ...parts, styles: ['/assets/app.css'] });
    expect(html).not.toContain('rel="modulepreload"');
    expect(html).not.toMatch(/<script type="module" src=/);
    const stylesheet = html.indexOf('rel="stylesheet"');
    const start = /<script nonce="n0">([^<]*)<\/script><\/body>/.exec(html);
    expect(start && start.index > stylesheet).toBe(true);
    expect(start![1]).toContain('"/assets/entry.js"');
    expect(start![1]).toContain('"/assets/a.js","/assets/b.js"');
    expect(start![1]).toContain("s.type='module'");
  });

  it('with its styles inline (the public pages): a module script at once', () => {
    const html = renderDocument({ ...parts, styles: [], inlineStyles: ['p{}'], preloads: [] });
    expect(html).toContain('<script type="module" src="/assets/entry.js" nonce="n0"></script>');
    expect(html).toContain('<style nonce="n0">p{}</style>');
  });
});

describe('records packed in the SSR state', () => {
  it('gives back every JSON value it packs, marker keys included', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const travelled = JSON.parse(JSON.stringify(packRecords(value)));
        expect(unpackRecords(travelled)).toEqual(JSON.parse(JSON.stringify(value)));
      }),
      { numRuns: 2000 },
    );
    const tricky = [{ $rows: ['a'], v: [[1]] }, { $rows: ['b'], v: [[2]] }, { $object: 1 }];
    expect(unpackRecords(JSON.parse(JSON.stringify(packRecords(tricky))))).toEqual(tricky);
  });

  it('writes a list of records as its keys once and a row per record', () => {
    const rows = Array.from({ length: 25 }, (_, i) => ({ id: i, brand_and_model: `Bike ${i}`, serial_number: `S${i}`, is_active: true, owner_id_label: null }));
    const packed = JSON.stringify(packRecords({ results: rows }));
    expect(packed.match(/brand_and_model/g)).toHaveLength(1);
    expect(packed.length).toBeLessThan(JSON.stringify({ results: rows }).length / 2);
  });
});
