import { Avatar, Label } from '../components/controls.tsx';
import type { TFunction } from 'i18next';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { isOverdue, type EntityDef, type EntityRecord, type FieldDef } from '../../shared/entity/define.ts';
import { todayIso } from '../components/calendar-dates.ts';
import { breakableText } from '../components/breakable-text.tsx';
import { formatDate, formatDateTime, formatMoney, formatNumber, formatTime } from '../../shared/format.ts';
import { isLanguage } from '../../shared/languages.ts';
import { seededText } from './seeded-names.ts';
import { StatusLabel, statusText } from './status-label.tsx';

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
      return breakableText(field.reference ? seededText(t, field.reference.entity, String(record[`${name}_label`] ?? value)) : String(record[`${name}_label`] ?? value));
    case 'email':
      return breakableText(String(value));
    case 'datetime':
      return formatDateTime(value, lang);
    case 'date':
      return (
        <span className="bo-nowrap">
          {formatDate(value, lang)}
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
      return formatTime(value);
    case 'decimal':
      return field.scale
        ? formatNumber(Number(value), lang, { minimumFractionDigits: Math.min(field.scale, 5), maximumFractionDigits: Math.min(field.scale, 5) })
        : formatNumber(Number(value), lang);
    default: {
      // A seeded catalogue's own name reads in the UI language (ADR 078); anything typed shows as typed.
      if (name === 'name') return seededText(t, def.name, String(value));
      // A text kept per language (`name_en`, `name_sv`) is in that language whatever the page's: said so (WCAG 3.1.2).
      const own = contentLanguageOf(name);
      return own && own !== lang ? <span lang={own}>{String(value)}</span> : String(value);
    }
  }
}

/** The language of a field kept per language (`name_en` → `en`, ADR 078's bilingual catalogues), or undefined. */
export function contentLanguageOf(name: string): string | undefined {
  const suffix = /_([a-z]{2})$/.exec(name)?.[1];
  return isLanguage(suffix) ? suffix : undefined;
}

export function FieldValue({ def, name, field, record }: { def: EntityDef; name: string; field: FieldDef; record: EntityRecord }) {
  const { t, i18n } = useTranslation();
  return <>{fieldValueContent(t, i18n.language, def, name, field, record)}</>;
}
