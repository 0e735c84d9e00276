import { Avatar, Label } from '../components/controls.tsx';
import type { TFunction } from 'i18next';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { isOverdue, type EntityDef, type EntityRecord, type FieldDef } from '../../shared/entity/define.ts';
import { todayIso } from '../components/calendar-dates.ts';
import { StatusLabel, statusText } from './status-label.tsx';

const CURRENCY = { sek: { suffix: ' kr', prefix: '' }, gbp: { suffix: '', prefix: '£' } } as const;

export function formatMoney(value: unknown, currency: 'sek' | 'gbp', lang: string): string {
  const n = typeof value === 'number' ? value : Number(value);
  if (value === null || value === undefined || value === '' || Number.isNaN(n)) return '';
  const text = n.toLocaleString(lang === 'sv' ? 'sv-SE' : 'en-GB', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  return `${CURRENCY[currency].prefix}${text}${CURRENCY[currency].suffix}`;
}

/** A moment (an ISO timestamp) as the app shows date-times in a language. */
export function formatDateTime(value: unknown, lang: string): string {
  return new Date(String(value)).toLocaleString(lang === 'sv' ? 'sv-SE' : 'en-GB');
}

/** A money field's currency: fixed by the field, or read from another field of the record. */
function currencyOf(field: FieldDef, record: EntityRecord): 'sek' | 'gbp' {
  const value = field.currencyField ? record[field.currencyField] : field.currency;
  return value === 'gbp' ? 'gbp' : 'sek';
}

/**
 * How one field of a record reads in a list cell or a detail view. A plain function of `t` as well as a
 * component: a list renders it for every cell (25 rows × columns), where a translation hook per cell
 * was a measurable part of the server render.
 */
export function fieldValueContent(t: TFunction, lang: string, def: EntityDef, name: string, field: FieldDef, record: EntityRecord): ReactNode {
  const value = record[name];
  if (value === null || value === undefined || value === '') return <span className="bo-muted">—</span>;
  switch (field.kind) {
    case 'boolean':
      return <Label variant={value ? 'success' : 'secondary'}>{t(value ? 'common.yes' : 'common.no')}</Label>;
    case 'money':
      return formatMoney(value, currencyOf(field, record), lang);
    case 'image':
      return <Avatar src={String(value)} size={24} square alt="" />;
    case 'enum':
      if (field.status) return <StatusLabel def={def} field={name} flow={field.status} value={value} text={statusText(t, def, name, value)} />;
      return t(`resources.${def.name}.options.${name}.${String(value)}`, { defaultValue: String(value) });
    case 'reference':
      return String(record[`${name}_label`] ?? value);
    case 'datetime':
      return formatDateTime(value, lang);
    case 'date':
      return (
        <span className="bo-nowrap">
          {String(value)}
          {isOverdue(field, value, record, todayIso()) && (
            <>
              {' '}
              <Label variant="danger" data-testid={`overdue-${name}`}>
                {t('common.overdue')}
              </Label>
            </>
          )}
        </span>
      );
    case 'time':
      return String(value).slice(0, 5);
    case 'decimal':
      return field.scale ? Number(value).toFixed(field.scale > 5 ? 5 : field.scale) : String(value);
    default:
      return String(value);
  }
}

export function FieldValue({ def, name, field, record }: { def: EntityDef; name: string; field: FieldDef; record: EntityRecord }) {
  const { t, i18n } = useTranslation();
  return <>{fieldValueContent(t, i18n.language, def, name, field, record)}</>;
}
