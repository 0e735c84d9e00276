import type { DehydratedState } from '@tanstack/react-query';
import type { Language } from '../shared/languages.ts';
import type { SsrConfig } from '../shared/ssr-contract.ts';

/** What the server hands to the browser inside the page. Never tokens: see docs/decisions. */
export interface SsrState {
  lang: Language;
  config: SsrConfig;
  /** TanStack Query's dehydrated cache, its record lists packed (`packRecords`). */
  dehydrated: DehydratedState;
}

const ROWS = '$rows';
const OBJECT = '$object';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The keys of a list whose items are records with the same keys and no undefined value, else null. */
function sharedKeys(list: unknown[]): string[] | null {
  if (list.length < 2 || !list.every(isRecord)) return null;
  const keys = Object.keys(list[0] as Record<string, unknown>);
  const same = (record: Record<string, unknown>) => {
    const own = Object.keys(record);
    return own.length === keys.length && keys.every((key) => key in record && record[key] !== undefined);
  };
  return (list as Record<string, unknown>[]).every(same) ? keys : null;
}

/**
 * Lists of records travel as their keys once and a row of values per record: a list page's 25 records
 * repeated their ~25 field names each, a third of the page's state (ADR 024). Lossless for JSON values
 * (`unpackRecords` is the inverse; a record that happens to use one of the two marker keys is wrapped).
 */
export function packRecords(value: unknown): unknown {
  if (Array.isArray(value)) {
    const keys = sharedKeys(value);
    if (keys) return { [ROWS]: keys, v: (value as Record<string, unknown>[]).map((record) => keys.map((key) => packRecords(record[key]))) };
    return value.map(packRecords);
  }
  if (!isRecord(value)) return value;
  const packed = Object.fromEntries(Object.entries(value).map(([key, item]) => [key, packRecords(item)]));
  return ROWS in value || OBJECT in value ? { [OBJECT]: packed } : packed;
}

export function unpackRecords(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(unpackRecords);
  if (!isRecord(value)) return value;
  if (OBJECT in value) return Object.fromEntries(Object.entries(value[OBJECT] as Record<string, unknown>).map(([key, item]) => [key, unpackRecords(item)]));
  if (ROWS in value) {
    const keys = value[ROWS] as string[];
    return (value.v as unknown[][]).map((row) => Object.fromEntries(keys.map((key, i) => [key, unpackRecords(row[i])])));
  }
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, unpackRecords(item)]));
}

/**
 * JSON that is safe inside a <script> element: `<`, `>`, `&`, U+2028 and U+2029 are escaped,
 * so a stored `</script><script>` or `<!--` in any field cannot end the element.
 */
export function serializeState(state: unknown): string {
  return JSON.stringify(state).replace(/[<>&\u2028\u2029]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
