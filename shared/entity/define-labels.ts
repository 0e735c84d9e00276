// ---- Labels (issue 18): one template, formatted in JS and in SQL ----

import { formatDate } from '../format.ts';

type LabelFormat = 'hm' | 'date';
type LabelPart = { text: string } | { field: string; format?: LabelFormat };

function labelParts(template: string, lang: string): LabelPart[] {
  const parts: LabelPart[] = [];
  const pattern = /\{([a-z][a-z0-9_]*)(?:\|(hm|date))?\}/g;
  const source = template.replaceAll('{lang}', lang);
  let at = 0;
  for (const match of source.matchAll(pattern)) {
    if (match.index > at) parts.push({ text: source.slice(at, match.index) });
    parts.push({ field: match[1]!, ...(match[2] ? { format: match[2] as LabelFormat } : {}) });
    at = match.index + match[0].length;
  }
  if (at < source.length) parts.push({ text: source.slice(at) });
  return parts;
}

/**
 * The fields a contains-search of a label may be split into (ADR 050): `lower(<label>) like '%text%'` holds
 * exactly when one field's `lower(<field>) like '%text%'` does, if the text cannot meet the template's own
 * text. That is so when each piece of the template's text holds a character other than white space and the
 * search holds none of those characters, nor white space at either end: a match reaching into a piece would
 * then hold only white space of it, at the match's start or end. Undefined when the label cannot be split
 * (a formatted part, or a search that could meet the template's text); the caller also needs every field
 * not null, as a NULL part makes the whole label NULL.
 */
export function labelSearchFields(template: string, search: string, lang = 'en'): string[] | undefined {
  if (search.trim() !== search || search === '') return undefined;
  const parts = labelParts(template, lang);
  const fields: string[] = [];
  const lowered = search.toLowerCase();
  for (const part of parts) {
    if ('field' in part) {
      if (part.format) return undefined;
      fields.push(part.field);
      continue;
    }
    const own = [...part.text.toLowerCase()].filter((c) => !/\s/.test(c));
    if (own.length === 0 || own.some((c) => lowered.includes(c))) return undefined;
  }
  return fields;
}

/** The fields a label template reads (for checks: each must be a field, a `<reference>_label` or `id`). */
export function labelFields(template: string): string[] {
  return labelParts(template, 'en').flatMap((p) => ('field' in p ? [p.field] : []));
}

/** A record's label in `lang` (en by default), trimmed: what lists, titles and choice lists show. */
export function labelOf(def: { label: string }, record: Record<string, unknown>, lang = 'en'): string {
  return labelParts(def.label, lang)
    .map((p) => {
      if ('text' in p) return p.text;
      const value = String(record[p.field] ?? '');
      if (p.format === 'date') return formatDate(value, lang);
      return p.format === 'hm' ? value.slice(0, 5) : value;
    })
    .join('')
    .trim();
}

/**
 * The same label as SQL over the row `alias` (`r.brand_and_model || ' (' || r.serial_number || ')'`): the
 * expression the API selects as a reference's `<field>_label`, searches by, and migrations index. Only stored
 * columns can be read so; a template naming another record's label is for screens only.
 */
export function labelSql(template: string, alias: string, lang = 'en'): string {
  return labelParts(template, lang)
    .map((p) => {
      if ('text' in p) return `'${p.text.replace(/'/g, "''")}'`;
      if (p.field.endsWith('_label')) throw new Error(`label ${template}: ${p.field} is not a column`);
      if (p.format === 'date') return dateSql(`${alias}.${p.field}`, lang);
      return p.format === 'hm' ? `to_char(${alias}.${p.field}, 'HH24:MI')` : `${alias}.${p.field}`;
    })
    .join(' || ');
}

/**
 * A date column in the app's date format for `lang` ("25 Nov 2026", "25 nov. 2026", issue 33): the day, the
 * month's short name as the app's one formatter writes it (read from it, so SQL and screens agree), the year.
 */
function dateSql(column: string, lang: string): string {
  const months = Array.from({ length: 12 }, (_, m) => {
    const written = formatDate(`2026-${String(m + 1).padStart(2, '0')}-15`, lang);
    return written.replace(/^15\s+/, '').replace(/\s+2026$/, '');
  });
  const names = months.map((m) => `'${m.replace(/'/g, "''")}'`).join(',');
  return `(to_char(${column}, 'FMDD') || ' ' || (array[${names}])[extract(month from ${column})::int] || ' ' || to_char(${column}, 'YYYY'))`;
}
