import styled from 'styled-components';
import { PHONE_MEDIA } from './breakpoints.ts';
// The card layout of a phone: static CSS linked with the chunks that show tables.
import './data-table.css';

/**
 * Every table of records in the app (ADR 021). On a wide screen, rows; on a phone each row is a card
 * whose cells are labelled from their `data-label` (a cell without one, such as the actions, gets no
 * label), and the header row keeps only its sort buttons (`th[data-sortable]`), as a wrapping row.
 * Pure CSS (data-table.css), so the server's HTML is already the right one; screens put `data-label`
 * on cells, or (a long list) mark the table `data-labelled` and give it `cellLabelStyle` once.
 */
export const DataTable = styled.table.attrs({ className: 'data-table' })`
  width: 100%;
  border-collapse: collapse;
  font-size: 14px;
  th,
  td {
    text-align: left;
    padding: 8px 10px;
    border-bottom: 1px solid var(--borderColor-muted, #d8dee4);
    vertical-align: middle;
  }
  th {
    font-weight: 600;
    background: var(--bgColor-muted, #f6f8fa);
  }
`;

/** A CSS string literal: quotes, backslashes, line breaks and `<` (no `</style>`) escaped. */
function cssString(text: string): string {
  return `"${text.replace(/[\\"<\n\r]/g, (c) => `\\${c.charCodeAt(0).toString(16)} `)}"`;
}

/**
 * The phone's card labels of a `data-labelled` table as one style rule per column (`labels[i]` for the
 * cell in column i + 1), instead of the same `data-label` on every row's cells: 25 rows of a 6-column
 * list carried ~4 KB of them in the server's HTML (issue 14's HTML budget).
 */
export function cellLabelStyle(tableId: string, labels: readonly string[], nowrapColumns: readonly number[] = []): string {
  // Columns (1-based) kept on one line at every width: dates, say, rather than a span in each cell.
  const nowrap = nowrapColumns.length ? `${nowrapColumns.map((n) => `#${tableId}>tbody>tr>td:nth-child(${n})`).join(',')}{white-space:nowrap}` : '';
  return `${nowrap}${PHONE_MEDIA}{${labels.map((label, i) => `#${tableId}>tbody>tr>td:nth-child(${i + 1})::before{content:${cssString(label)}}`).join('')}}`;
}
