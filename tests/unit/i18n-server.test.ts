import { createElement } from 'react';
import { renderToString } from 'react-dom/server';
import { I18nextProvider, useTranslation } from 'react-i18next';
import { describe, expect, it, vi } from 'vitest';
import { serverI18n } from '../../client/i18n-server.ts';

describe("the server's translations", () => {
  it('computes a text without options once per language, and texts with options every time, in the right language', () => {
    function Texts() {
      const { t } = useTranslation();
      return createElement('p', null, [t('list.search'), t('list.search'), t('list.filterAll', { name: 'X' }), t('routes.bicycles')].join(' | '));
    }
    const render = (lang: 'en' | 'sv') => renderToString(createElement(I18nextProvider, { i18n: serverI18n(lang) }, createElement(Texts)));
    const sv = serverI18n('sv');
    const asked = vi.spyOn(sv, 't');
    expect(render('sv')).toBe('<p>Sök | Sök | X: alla | Cyklar</p>');
    const first = asked.mock.calls.length;
    expect(render('sv')).toBe('<p>Sök | Sök | X: alla | Cyklar</p>');
    // The second render asks i18next only for the text with options.
    expect(asked.mock.calls.length - first).toBe(1);
    expect(render('en')).toBe('<p>Search | Search | X: all | Bicycles</p>');
    asked.mockRestore();
  });

  it('computes a text asked with only a context or a default once too, each context and default apart (ADR 053)', () => {
    const texts = (t: (key: string, options?: object) => string) => [
      t('resources.bicycles.options.valve_type.presta', { defaultValue: 'presta' }),
      t('resources.services.actions.transition.label', { context: '2' }),
      t('resources.services.actions.transition.label', { context: '4' }),
      t('resources.bicycles.options.valve_type.none', { defaultValue: 'A' }),
      t('resources.bicycles.options.valve_type.none', { defaultValue: 'B' }),
      t('resources.bicycles.options.valve_type.presta', { defaultValue: 'presta', context: undefined }),
      // A missing text: an empty default answers '', no default answers the key.
      `[${t('errors.no_such_text', { defaultValue: '' })}]`,
      t('errors.no_such_text', {}),
      t('errors.no_such_text', { defaultValue: undefined }),
    ];
    function Texts() {
      const { t } = useTranslation();
      return createElement('p', null, texts(t as never).join(' | '));
    }
    const render = () => renderToString(createElement(I18nextProvider, { i18n: serverI18n('en') }, createElement(Texts)));
    const en = serverI18n('en');
    const asked = vi.spyOn(en, 't');
    const expected = '<p>Presta | Mark as booked | Finish | A | B | Presta | [] | errors.no_such_text | errors.no_such_text</p>';
    expect(render()).toBe(expected);
    const first = asked.mock.calls.length;
    expect(render()).toBe(expected);
    expect(asked.mock.calls.length - first).toBe(0);
    asked.mockRestore();
  });
});
