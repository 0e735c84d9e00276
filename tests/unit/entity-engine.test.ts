import { checkEntitySql } from '../../upstream/resources/entity-sql-parts.ts';
import { Fragment, createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import type { TFunction } from 'i18next';
import { describe, expect, it, vi } from 'vitest';
import { checkDefinition } from '../../shared/entity/define-checks.ts';
import { defineEntity, isOverdue, type EntityDef } from '../../shared/entity/define.ts';
import { fieldValueContent } from '../../client/entity/field-value.tsx';
import { createSchema, listParamsSchema, updateSchema } from '../../shared/entity/schemas.ts';
import { ENTITIES } from '../../shared/entities/registry.ts';
import { promoCodesEntity } from '../../shared/entities/promo-codes.ts';
import { serviceSlotsEntity } from '../../shared/entities/service-slots.ts';
import { productsEntity } from '../../shared/entities/products.ts';
import { languagesEntity } from '../../shared/entities/languages.ts';
import { servicesEntity } from '../../shared/entities/services.ts';
import { ASSET_STATUS, assetsEntity } from '../../shared/entities/assets.ts';
import { fieldErrorsOf } from '../../shared/schemas/messages.ts';
import { parseListParams } from '../../client/entity/list-state.ts';
import { routerKey } from '../../client/entity/entity-api.ts';
import { appRouter } from '../../server/trpc/router.ts';
import en from '../../locales/en/resources.json';
import sv from '../../locales/sv/resources.json';
import enCommon from '../../locales/en/common.json';
import svCommon from '../../locales/sv/common.json';

const errorsOf = (def: EntityDef, input: unknown) => {
  const result = createSchema(def).safeParse(input);
  return result.success ? {} : fieldErrorsOf(result.error);
};

describe('entity definitions', () => {
  it('every entity has a tRPC router with the CRUD procedures (read-only entities: reading only; update-only ones: no create or delete)', () => {
    const procedures = appRouter._def.procedures as Record<string, unknown>;
    for (const def of ENTITIES as readonly EntityDef[]) {
      for (const proc of ['list', 'get', 'options']) expect(procedures[`${routerKey(def)}.${proc}`], `${def.name}.${proc}`).toBeDefined();
      for (const proc of ['create', 'update', 'delete']) {
        if (def.readOnly || (def.updateOnly && proc !== 'update')) expect(procedures[`${routerKey(def)}.${proc}`], `${def.name}.${proc}`).toBeUndefined();
        else expect(procedures[`${routerKey(def)}.${proc}`], `${def.name}.${proc}`).toBeDefined();
      }
    }
  });

  it('English and Swedish texts have the same keys', () => {
    const keys = (value: unknown, prefix = ''): string[] =>
      value && typeof value === 'object' ? Object.entries(value).flatMap(([k, v]) => keys(v, `${prefix}${k}.`)) : [prefix.slice(0, -1)];
    expect(keys(sv).sort()).toEqual(keys(en).sort());
    expect(keys(svCommon).sort()).toEqual(keys(enCommon).sort());
  });

  it('sub-collections and lookups point at what exists', () => {
    for (const def of ENTITIES as readonly EntityDef[]) {
      if (def.parent) {
        expect(
          ENTITIES.some((e) => e.name === def.parent!.entity),
          def.name,
        ).toBe(true);
        expect(def.fields[def.parent.field]).toMatchObject({ kind: 'reference', reference: { entity: def.parent.entity }, filter: true });
      }
      for (const [key, field] of Object.entries(def.fields)) {
        if (field.lookup) expect(def.fields[field.lookup.via]?.kind, `${def.name}.${key}`).toBe('reference');
        if (field.currencyField) expect(def.fields[field.currencyField]?.options, `${def.name}.${key}`).toEqual(['sek', 'gbp']);
      }
    }
  });

  it('every entity and field is labelled in English and Swedish', () => {
    for (const def of ENTITIES) {
      for (const locale of [en, sv] as unknown as Record<string, { name: string; one: string; fields: Record<string, string> }>[]) {
        const labels = locale[def.name];
        expect(labels?.name, def.name).toBeTruthy();
        expect(labels?.one, def.name).toBeTruthy();
        for (const field of Object.keys(def.fields)) expect(labels?.fields[field], `${def.name}.${field}`).toBeTruthy();
      }
    }
  });

  it("marks every field of a person named like a person's own value personal (or secret), so the history seals it (ADR 076)", () => {
    const PERSONAL_NAME = /(^|_)(e?mail|name|phone|address|street|city|area|state|post_code|biography)(_|$)/;
    const people = (ENTITIES as readonly EntityDef[]).filter((def) => def.person);
    expect(people.map((def) => def.name)).toEqual(['users']);
    for (const def of people) {
      const fields = { ...def.fields, ...def.history?.fields, ...Object.fromEntries(Object.values(def.actions ?? {}).flatMap((a) => Object.entries(a.input ?? {}))) };
      const unmarked = Object.entries(fields).filter(
        ([key, field]) => PERSONAL_NAME.test(key) && (field.kind === 'text' || field.kind === 'email') && !field.personal && !field.secret,
      );
      expect(
        unmarked.map(([key]) => key),
        def.name,
      ).toEqual([]);
    }
  });
});

describe('§5 rules from the definitions', () => {
  it('required names', () => {
    expect(errorsOf(languagesEntity, { code: '', name: ' ', native_name: null })).toEqual({
      code: 'validation.required',
      name: 'validation.required',
      native_name: 'validation.required',
    });
    expect(errorsOf(productsEntity, { name_en: 'Pump', name_sv: 'Pump', description_en: 'x', description_sv: '' })).toEqual({ description_sv: 'validation.required' });
  });

  it('service slot: start time after end time, max at least 1', () => {
    expect(errorsOf(serviceSlotsEntity, { name: 'Morning', start_time: '12:00', end_time: '08:00', max: 0 })).toEqual({
      start_time: 'validation.startAfterEnd',
      max: 'validation.min:1',
    });
    expect(errorsOf(serviceSlotsEntity, { name: 'Morning', start_time: '08:00', end_time: '12:00', max: '3' })).toEqual({});
  });

  it('promo code: dates required and ordered, duration not negative, max uses at least 1, uses not writable', () => {
    expect(errorsOf(promoCodesEntity, { code: 'X', max_uses: 1, duration_days: -1 })).toEqual({
      starts_at: 'validation.required',
      expires_at: 'validation.required',
      duration_days: 'validation.notNegative',
    });
    expect(errorsOf(promoCodesEntity, { code: 'X', max_uses: 0, starts_at: '2026-05-01', expires_at: '2026-04-01' })).toEqual({
      max_uses: 'validation.min:1',
      expires_at: 'validation.expiresBeforeStart',
    });
    const ok = createSchema(promoCodesEntity).parse({ code: 'SPRING', max_uses: 10, starts_at: '2026-04-01', expires_at: '2026-05-01', uses: 99 });
    expect(ok).not.toHaveProperty('uses');
    expect(ok.company_name).toBeNull();
  });

  it('rating: a whole number from 1 to 5, on a finished service only (form and API share the rule)', () => {
    const finished = { service_date: '2026-05-01', service_slot_id: 1, status: 4, buddy_id: 2, bicycle_id: 1, origin_type: 'one_off', latitude: 59.33, longitude: 18.06 };
    expect(errorsOf(servicesEntity, { ...finished, rating: 0 })).toEqual({ rating: 'validation.min:1' });
    expect(errorsOf(servicesEntity, { ...finished, rating: 6 })).toEqual({ rating: 'validation.max:5' });
    expect(errorsOf(servicesEntity, { ...finished, rating: 2.5 })).toEqual({ rating: 'validation.integer' });
    expect(errorsOf(servicesEntity, { ...finished, rating: '4' })).toEqual({});
    expect(errorsOf(servicesEntity, { ...finished, rating: '' })).toEqual({});
    expect(errorsOf(servicesEntity, { ...finished, status: 2, rating: 3 })).toEqual({ rating: 'validation.ratingNeedsFinished' });
  });

  it('asset: one in use is with a buddy', () => {
    expect(errorsOf(assetsEntity, { name: 'Van', asset_type: 'van', status: 2 })).toEqual({ buddy_id: 'validation.assetInUseNeedsBuddy' });
    expect(errorsOf(assetsEntity, { name: 'Van', asset_type: 'van', status: 2, buddy_id: 2 })).toEqual({});
    expect(errorsOf(assetsEntity, { name: 'Van', asset_type: 'bus', status: 1 })).toEqual({ asset_type: 'validation.option' });
  });

  it('updates carry the version they are based on', () => {
    expect(updateSchema(promoCodesEntity).safeParse({ id: 1, data: {} }).success).toBe(false);
  });
});

describe('list params', () => {
  it('parse the URL with safe defaults', () => {
    const search = new URLSearchParams('page=3&page_size=50&search=%20abc%20&ordering=-name&f_is_main_company=true&f_unknown=1');
    const companies = ENTITIES.find((e) => e.name === 'companies')!;
    expect(parseListParams(companies, search)).toEqual({ page: 3, page_size: 50, search: 'abc', ordering: '-name', filters: { is_main_company: 'true' } });
    expect(parseListParams(companies, new URLSearchParams('page=-4&page_size=7&ordering=password'))).toEqual({ page: 1, page_size: 25, ordering: undefined, filters: {} });
  });

  it('carry where a page reached by Next starts (ADR 051), only past the first page and only as a cursor', () => {
    const companies = ENTITIES.find((e) => e.name === 'companies')!;
    expect(parseListParams(companies, new URLSearchParams('page=2&after=WzEyLDEyXQ')).after).toBe('WzEyLDEyXQ');
    expect(parseListParams(companies, new URLSearchParams('page=1&after=WzEyLDEyXQ')).after).toBeUndefined();
    expect(parseListParams(companies, new URLSearchParams('page=2&after=%3Cscript%3E')).after).toBeUndefined();
    const schema = listParamsSchema(companies);
    expect(schema.safeParse({ page: 2, page_size: 25, after: 'WzEyLDEyXQ', filters: {} }).success).toBe(true);
    expect(schema.safeParse({ page: 2, page_size: 25, after: 'a b', filters: {} }).success).toBe(false);
  });

  it('the server schema refuses unknown orderings, filters and page sizes', () => {
    const schema = listParamsSchema(serviceSlotsEntity);
    expect(schema.safeParse({ ordering: 'password' }).success).toBe(false);
    expect(schema.safeParse({ page_size: 1000 }).success).toBe(false);
    expect(schema.safeParse({ filters: { secret: 'x' } }).success).toBe(false);
    expect(schema.parse({})).toEqual({ page: 1, page_size: 25, filters: {} });
  });
});

describe('due dates (ADR 041)', () => {
  const field = assetsEntity.fields.next_inspection;
  const today = '2026-11-25';
  const asset = (next_inspection: unknown, status: number = ASSET_STATUS.Available) => ({ next_inspection, status });

  it('a date before today is overdue; today itself and later are not', () => {
    expect(isOverdue(field, '2026-11-24', asset('2026-11-24'), today)).toBe(true);
    expect(isOverdue(field, '2025-12-31', asset('2025-12-31'), today)).toBe(true);
    expect(isOverdue(field, '2026-11-25', asset('2026-11-25'), today)).toBe(false);
    expect(isOverdue(field, '2026-11-26', asset('2026-11-26'), today)).toBe(false);
  });

  it('no date, a field without `due` and a retired asset are never flagged', () => {
    expect(isOverdue(field, null, asset(null), today)).toBe(false);
    expect(isOverdue(field, '', asset(''), today)).toBe(false);
    expect(isOverdue(assetsEntity.fields.purchase_date, '2020-01-01', asset('2020-01-01'), today)).toBe(false);
    expect(isOverdue(field, '2026-11-24', asset('2026-11-24', ASSET_STATUS.Retired), today)).toBe(false);
  });

  it('the list cell and the record page flag it beside the date, by the date of the viewer', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      // Local noon, so the viewer's date is the 25th whatever the machine's time zone.
      vi.setSystemTime(new Date(2026, 10, 25, 12, 0, 0));
      const cell = (value: string, lang: 'en' | 'sv' = 'en') => {
        const t = ((key: string) => (key === 'common.overdue' ? (lang === 'en' ? enCommon.common.overdue : svCommon.common.overdue) : key)) as unknown as TFunction;
        const record = { id: 1, version: 1, created_at: '', updated_at: '', ...asset(value) };
        return renderToStaticMarkup(createElement(Fragment, null, fieldValueContent(t, lang, assetsEntity, 'next_inspection', field, record)));
      };
      expect(cell('2026-11-24')).toContain('Overdue');
      expect(cell('2026-11-24', 'sv')).toContain('Försenad');
      expect(cell('2026-11-25')).not.toContain('Overdue');
      expect(cell('2026-11-25')).toContain('25 Nov 2026');
    } finally {
      vi.useRealTimers();
    }
  });

  it('only a date can be due; an active field must be a boolean filter', () => {
    expect(() => checkDefinition(defineEntity({ name: 'bad-due', route: '/assets', label: '{name}', fields: { name: { kind: 'text', sortable: true, due: true } } }))).toThrow(
      /only a date/,
    );
    expect(() =>
      checkDefinition(
        defineEntity({ name: 'bad-active', route: '/assets', label: '{name}', activeField: 'on', fields: { name: { kind: 'text', sortable: true }, on: { kind: 'boolean' } } }),
      ),
    ).toThrow(/boolean list filter/);
  });

  it('a search expression reads columns of the row t only, takes no parameter and is named unlike a field (ADR 056, 072)', () => {
    const withExpression = (sql: string, key = 'full_name') => {
      const def = defineEntity({
        name: 'people',
        route: '/users',
        label: '{a}',
        defaultSort: 'id',
        searchExpressions: { [key]: {} },
        fields: { a: { kind: 'text' }, b: { kind: 'text' } },
      });
      checkDefinition(def);
      checkEntitySql(def, { searchExpressions: { [key]: sql } });
    };
    expect(() => withExpression("coalesce(t.a, '') || ' ' || coalesce(t.b, '')")).not.toThrow();
    expect(() => withExpression("t.a || ' ' || r.b")).toThrow(/only those/);
    expect(() => withExpression("T.a || ' ' || t.b")).toThrow(/only those/);
    expect(() => withExpression("a || ' ' || b")).toThrow(/only those/);
    expect(() => withExpression('t.a || $1')).toThrow(/no parameter/);
    expect(() => withExpression('t.a', 'a')).toThrow(/a field has that name/);
    // Declared and written go together: a declaration without SQL, or SQL without a declaration, stops the start.
    const users = defineEntity({ name: 'people', route: '/users', label: '{a}', defaultSort: 'id', searchExpressions: { full_name: {} }, fields: { a: { kind: 'text' } } });
    expect(() => checkEntitySql(users, {})).toThrow(/no SQL/);
    expect(() => checkEntitySql({ ...users, searchExpressions: {} }, { searchExpressions: { full_name: 't.a' } })).toThrow(/undeclared/);
  });
});
