/**
 * RFC 4180 CSV with spreadsheet-formula neutralisation: a cell starting with = + - @ tab or CR is
 * prefixed with ' so Excel/LibreOffice show it as text instead of evaluating it (security guide).
 */
const FORMULA_START = /^[=+\-@\t\r]/;

export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  let text = value instanceof Date ? value.toISOString() : String(value);
  if (FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) || /^\s|\s$/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvRow(values: readonly unknown[]): string {
  return values.map(csvCell).join(',') + '\r\n';
}

/** A file name safe in a Content-Disposition header on every platform. */
export function safeFileName(base: string, extension: string): string {
  const clean = base.normalize('NFKD').replace(/[^\w.-]+/g, '-').replace(/^[-.]+|[-.]+$/g, '').slice(0, 80) || 'export';
  return `${clean}.${extension}`;
}
