import { Avatar, Label } from '@primer/react';
import { useTranslation } from 'react-i18next';
import type { EntityDef, EntityRecord, FieldDef } from '../../shared/entity/define.ts';

const CURRENCY = { sek: { suffix: ' kr', prefix: '' }, gbp: { suffix: '', prefix: '£' } } as const;

export function formatMoney(value: unknown, currency: 'sek' | 'gbp', lang: string): string {
  const n = typeof value === 'number' ? value : Number(value);
  if (value === null || value === undefined || value === '' || Number.isNaN(n)) return '';
  const text = n.toLocaleString(lang === 'sv' ? 'sv-SE' : 'en-GB', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  return `${CURRENCY[currency].prefix}${text}${CURRENCY[currency].suffix}`;
}

/** How one field of a record reads in a list cell or a detail view. */
export function FieldValue({ def, name, field, record }: { def: EntityDef; name: string; field: FieldDef; record: EntityRecord }) {
  const { t, i18n } = useTranslation();
  const value = record[name];
  if (value === null || value === undefined || value === '') return <span style={{ color: 'var(--fgColor-muted)' }}>—</span>;
  switch (field.kind) {
    case 'boolean':
      return <Label variant={value ? 'success' : 'secondary'}>{t(value ? 'common.yes' : 'common.no')}</Label>;
    case 'money':
      return <>{formatMoney(value, field.currency ?? 'sek', i18n.language)}</>;
    case 'image':
      return <Avatar src={String(value)} size={24} square alt="" />;
    case 'enum':
      return <>{t(`resources.${def.name}.options.${name}.${String(value)}`, { defaultValue: String(value) })}</>;
    case 'reference':
      return <>{String(record[`${name}_label`] ?? value)}</>;
    case 'datetime':
      return <>{new Date(String(value)).toLocaleString(i18n.language === 'sv' ? 'sv-SE' : 'en-GB')}</>;
    case 'time':
      return <>{String(value).slice(0, 5)}</>;
    default:
      return <>{String(value)}</>;
  }
}
