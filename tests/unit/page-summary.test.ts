import { describe, expect, it } from 'vitest';
import { pageSummary } from '../../client/components/pager.tsx';
import { serverI18n } from '../../client/i18n-server.ts';

/** ADR 040: a count past the exact threshold is the planner's estimate, and the pager says so, rounded. */
describe('the pager’s summary', () => {
  const en = serverI18n('en').getFixedT('en');
  const sv = serverI18n('sv').getFixedT('sv');

  it('shows an exact count as it is, with the plural the language uses', () => {
    expect(pageSummary(en, 'en', { page: 2, page_size: 25, count: 48, total_pages: 2 })).toBe('Page 2 of 2 · 48 results');
    expect(pageSummary(en, 'en', { page: 1, page_size: 25, count: 1, total_pages: 1 })).toBe('Page 1 of 1 · 1 result');
    expect(pageSummary(sv, 'sv', { page: 1, page_size: 25, count: 1, total_pages: 1 })).toBe('Sida 1 av 1 · 1 träff');
    expect(pageSummary(en, 'en', { page: 1, page_size: 25, count: 9_999, total_pages: 400 })).toBe('Page 1 of 400 · 9,999 results');
  });

  it('never shows an estimate as exact: "about", rounded to two significant digits', () => {
    const estimated = { page: 3, page_size: 25, count: 231_412, total_pages: 9_257, estimated: true };
    expect(pageSummary(en, 'en', estimated)).toBe('Page 3 of about 9,300 · about 230,000 results');
    expect(pageSummary(sv, 'sv', estimated).replace(/\s/g, ' ')).toBe('Sida 3 av cirka 9 300 · cirka 230 000 träffar');
  });
});
