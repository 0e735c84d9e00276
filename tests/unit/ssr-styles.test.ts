import { createElement } from 'react';
import { renderToString } from 'react-dom/server';
import styled, { ServerStyleSheet, StyleSheetManager, keyframes } from 'styled-components';
import { describe, expect, it } from 'vitest';
import { reusingStyleSheet } from '../../client/ssr-styles.ts';

const spin = keyframes`from { transform: rotate(0deg); } to { transform: rotate(360deg); }`;
const Box = styled.div<{ $wide?: boolean }>`
  display: flex;
  width: ${(p) => (p.$wide ? '20rem' : '10rem')};
  &:hover {
    color: red;
  }
  animation: ${spin} 1s linear infinite;
`;
const Label = styled.span`
  font-weight: 600;
`;

/** Counts stylis's work: a plugin stylis calls for every element it compiles. */
let compiledElements = 0;
const counting = Object.defineProperty(
  () => {
    compiledElements += 1;
  },
  'name',
  { value: 'counting' },
);

function page(sheet: ServerStyleSheet, wide: boolean) {
  const tree = createElement(StyleSheetManager, { stylisPlugins: [counting] }, createElement(Box, { $wide: wide }, createElement(Label, null, 'x')));
  const html = renderToString(sheet.collectStyles(tree));
  const css = sheet.getStyleTags();
  sheet.seal();
  return { html, css };
}

describe("the server's style sheets (ADR 053)", () => {
  it('reuse what stylis compiled for an earlier render, and a page holds the same styles as with a sheet of its own', () => {
    const plain = page(new ServerStyleSheet(), false);
    const first = page(reusingStyleSheet(), false);
    const afterFirst = compiledElements;
    const second = page(reusingStyleSheet(), false);
    // Nothing compiled again, and the same markup and styles as the plain sheet.
    expect(compiledElements).toBe(afterFirst);
    expect(second).toEqual(first);
    expect(first).toEqual(plain);
    expect(first.css).toContain('@keyframes');
  });

  it('compile what no render has used yet, and keep a page to what it uses', () => {
    page(reusingStyleSheet(), false);
    const before = compiledElements;
    const wide = page(reusingStyleSheet(), true);
    expect(compiledElements).toBeGreaterThan(before);
    expect(wide.css).toContain('width:20rem');
    expect(wide.css).not.toContain('width:10rem');
    expect(wide).toEqual(page(new ServerStyleSheet(), true));
  });
});
