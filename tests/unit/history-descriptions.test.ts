import { createElement } from 'react';
import { renderToString } from 'react-dom/server';
import { I18nextProvider } from 'react-i18next';
import { describe, expect, it } from 'vitest';
import { HistoryEntries } from '../../client/entity/record-history.tsx';
import { serverI18n } from '../../client/i18n-server.ts';
import enResources from '../../locales/en/resources.json';
import svResources from '../../locales/sv/resources.json';
import { ENTITIES, entityByName } from '../../shared/entities/registry.ts';
import type { EntityDef } from '../../shared/entity/define.ts';
import { historyFieldKeys, historyPart } from '../../shared/entity/history-fields.ts';
import type { AuditRow } from '../../shared/schemas/audit.ts';

/** Issue 33 (ADR 065): every kind of entry reads as words from its definition, in English and Swedish, never as JSON. */
const base = { at: '2026-11-28T10:00:00.000Z', role: 'Admin', address: null, request_id: null, user_id: 1, user_name: 'Ada Admin' };
let next = 1;
const entry = (entity: string, record_id: number | null, action: string, changes: AuditRow['changes'], more: Partial<AuditRow> = {}): AuditRow => ({
  ...base,
  id: next++,
  entity,
  record_id,
  action,
  changes,
  ...more,
});

const ENTRIES: AuditRow[] = [
  entry(
    'services',
    7,
    'details.setMany',
    {
      details: [
        null,
        [
          { key: 3, check_status: 2, needs_repair: false, notes: 'Pads worn' },
          { key: 4, check_status: 1, needs_repair: true, notes: null },
        ],
      ],
    },
    { refs: { 'details.service_item_id': { '3': 'Brakes', '4': 'Chain' } } },
  ),
  entry('services', 7, 'images.add', { images: [null, { url: 'http://localhost/files/photo-1.png' }] }),
  entry(
    'services',
    7,
    'details.images.add',
    { images: [null, { service_item_id: 3, url: 'http://localhost/files/photo-2.png' }] },
    { refs: { 'images.service_item_id': { '3': 'Brakes' } } },
  ),
  entry('services', 7, 'details.images.remove', { images: [{ id: 5, service_item_id: 3, url: 'http://localhost/files/photo-2.png' }, null] }),
  entry('bicycles', null, 'export', { query: [null, { search: 'Crescent', is_active: 'true', ordering: '-serial_number' }] }),
  entry('bicycles', null, 'export', { query: [null, {}] }),
  entry('audit', null, 'export', { query: [null, { entity: 'services', action: 'update', from: '2026-11-01', account_events: 'hidden' }] }),
  entry('users', 2, 'sign_in', { method: [null, 'password'] }, { user_id: 2, user_name: 'Bo Buddy' }),
  entry('users', 3, 'sign_in', { method: [null, 'passkey'] }, { user_id: 3, user_name: 'Pia Passkey' }),
  entry('users', 2, 'sign_in_failed', { email: [null, 'buddy@example.com'], failures: [null, 2], address_failures: [null, 4] }, { user_id: null, user_name: null, role: null }),
  entry('users', 2, 'roles.add', { roles: [null, { role: 'Admin' }] }),
  entry('users', 2, 'roles.remove', { roles: ['Admin', null] }),
  entry('users', null, 'invite', { email: [null, 'new@example.com'], roles: [null, ['Buddy', 'Shop']] }),
  entry('trial-groups', 3, 'invite', { emails: [null, 'a@example.com, b@example.com'] }),
  entry('subscriptions', 4, 'cancel', { at_period_end: [null, true], status: ['active', 'canceled'] }),
];

function render(lang: 'en' | 'sv', entries = ENTRIES): string {
  return renderToString(
    createElement(I18nextProvider, { i18n: serverI18n(lang) }, createElement(HistoryEntries, { entries, defOf: (name: string) => entityByName(name) as EntityDef | undefined })),
  );
}
/** The page's text, tags removed, entities decoded as a browser shows them. */
const textOf = (html: string) =>
  html
    .replace(/<\/?(li|ul|ol|p|time|strong|img)\b[^>]*>/g, ' ')
    .replace(/<[^>]+>/g, '')
    .replace(/&quot;/g, '"')
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ');

describe('history entries as words (ADR 065)', () => {
  it('reads a checklist save, photos, exports and account events in English, without JSON', () => {
    const html = render('en');
    const text = textOf(html);
    expect(text).not.toMatch(/\{|\[\{|":/);
    expect(text).toContain('Checklist: saved together');
    expect(text).toContain('Brakes: Check status: Adjusted & OK · Repair needed: No · Notes: Pads worn');
    expect(text).toContain('Chain: Check status: Needs repair · Repair needed: Yes ');
    expect(text).toContain('Checklist – Photos: added');
    expect(text).toContain('Checklist item: Brakes');
    // A photo is its thumbnail, the address never written out.
    expect(html).toContain('src="http://localhost/files/photo-1.png"');
    expect(text).not.toContain('http://');
    expect(text).toMatch(/Filters: Search: Crescent · Active: Yes · Sorted by: Bicycle ID \(descending\)/);
    expect(text).toContain('Filters: Everything (no filters)');
    expect(text).toMatch(/Filters: Kind of record: Services · Action: Updated · Date from: .*2026.* · Account events: Account events: hidden/);
    expect(text).toContain('Bo Buddy Signed in with password');
    expect(text).toContain('Pia Passkey Signed in with passkey');
    expect(text).not.toMatch(/Method|method:/);
    expect(text).toMatch(/Not signed in Sign-in failed .* E-mail address: buddy@example\.com Failed attempts with this address: 2 /);
    expect(text).toContain('Roles: added');
    expect(text).toContain('Role: Admin');
    expect(text).toContain('E-mail addresses: a@example.com, b@example.com');
    expect(text).toContain("At the period's end: Yes");
  });

  it('reads the same entries in Swedish with every label translated', () => {
    const text = textOf(render('sv'));
    expect(text).not.toMatch(/\{|\[\{|":/);
    expect(text).toContain('Checklista: sparade tillsammans');
    expect(text).toContain('Brakes: Kontrollstatus: Justerad & OK · Behöver lagas: Nej · Anteckningar: Pads worn');
    expect(text).toContain('Inloggad med lösenord');
    expect(text).toContain('Inloggad med lösennyckel');
    expect(text).toContain('Ej inloggad');
    expect(text).toContain('Urval: Sökning: Crescent');
    // No key of a definition left as it is named in code.
    for (const raw of ['details', 'images', 'check_status', 'needs_repair', 'service_item_id', 'method', 'failures', 'query', 'search', 'ordering', 'at_period_end', 'emails'])
      expect(text, raw).not.toMatch(new RegExp(`(^|[^\\w])${raw}([^\\w]|$)`));
    for (const english of ['Checklist', 'Photos', 'Filters', 'Signed in', 'Sign-in failed', 'Not signed in', 'E-mail address'])
      expect(text, english).not.toMatch(new RegExp(`${english}(?![a-zåäö])`));
  });

  it('has a label in both languages for every key a definition’s history entries can carry, and for its options', () => {
    const resources = { en: enResources, sv: svResources } as unknown as Record<
      string,
      Record<string, { historyFields?: Record<string, string>; options?: Record<string, Record<string, string>>; subResources?: Record<string, string> }>
    >;
    for (const def of ENTITIES as readonly EntityDef[]) {
      for (const key of historyFieldKeys(def))
        for (const lang of ['en', 'sv']) expect(resources[lang]![def.name]?.historyFields?.[key], `${lang} ${def.name}.historyFields.${key}`).toBeTruthy();
      for (const [key, sub] of Object.entries(def.subResources ?? {}))
        if (sub.add || sub.set || sub.remove) {
          for (const lang of ['en', 'sv']) expect(resources[lang]![def.name]?.subResources?.[key], `${lang} ${def.name}.subResources.${key}`).toBeTruthy();
          for (const [name, field] of Object.entries({ ...sub.item, ...sub.add, ...sub.set }))
            if (field.kind === 'enum')
              for (const option of field.options ?? [])
                for (const lang of ['en', 'sv'])
                  expect(resources[lang]![def.name]?.options?.[name]?.[String(option)], `${lang} ${def.name}.options.${name}.${option}`).toBeTruthy();
        }
      for (const [key, field] of Object.entries(def.history?.fields ?? {}))
        if (field.kind === 'enum')
          for (const option of field.options ?? [])
            for (const lang of ['en', 'sv']) expect(resources[lang]![def.name]?.options?.[key]?.[String(option)], `${lang} ${def.name}.options.${key}.${option}`).toBeTruthy();
    }
  });

  it('finds each key’s description in the definition: a checklist row’s photo names the row by the checklist’s own field', () => {
    const services = entityByName('services') as EntityDef;
    expect(historyPart(services, 'details.setMany', 'details')).toMatchObject({ kind: 'items', key: 'service_item_id' });
    const photo = historyPart(services, 'details.images.add', 'images');
    expect(photo).toMatchObject({ kind: 'items' });
    expect(photo?.kind === 'items' && photo.fields.service_item_id?.kind).toBe('reference');
    expect(photo?.kind === 'items' && photo.fields.url?.kind).toBe('image');
    expect(historyPart(services, 'export', 'query')).toMatchObject({ kind: 'query' });
    expect(historyPart(entityByName('users') as EntityDef, 'sign_in', 'method')).toMatchObject({ kind: 'field', label: 'resources.users.historyFields.method' });
  });
});
