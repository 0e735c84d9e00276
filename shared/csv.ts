/**
 * RFC 4180 CSV with spreadsheet-formula neutralisation: a cell starting with = + - @ tab or CR is
 * prefixed with ' so Excel/LibreOffice show it as text instead of evaluating it (security guide).
 */
const FORMULA_START = /^[=+\-@\t\r]/;

/** Anything that needs a prefix or quotes: a formula start, a quote, comma or line break, or edge spaces. */
const NEEDS_WORK = /^[=+\-@\s]|[",\r\n]|\s$/;

export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  let text = value instanceof Date ? value.toISOString() : String(value);
  // Most cells are plain: one test instead of three (exports write millions of cells).
  if (!NEEDS_WORK.test(text)) return text;
  if (FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) || /^\s|\s$/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvRow(values: readonly unknown[]): string {
  return values.map(csvCell).join(',') + '\r\n';
}

/** A file name safe in a Content-Disposition header on every platform. */
export function safeFileName(base: string, extension: string): string {
  const clean =
    base
      .normalize('NFKD')
      .replace(/[^\w.-]+/g, '-')
      .replace(/^[-.]+|[-.]+$/g, '')
      .slice(0, 80) || 'export';
  return `${clean}.${extension}`;
}

/**
 * Counts the records of a CSV stream as its bytes arrive, however the chunks split it: a line break
 * inside a quoted cell (a multi-line note) does not end a record. `"` toggles the quoted state; an
 * escaped `""` toggles twice and so changes nothing.
 */
export function csvRecordCounter(): (chunk: Uint8Array) => number {
  let quoted = false;
  let records = 0;
  return (chunk) => {
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i];
      if (byte === 0x22) quoted = !quoted;
      else if (byte === 0x0a && !quoted) records++;
    }
    return records;
  };
}
