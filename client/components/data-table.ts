import styled from 'styled-components';
// The card layout of a phone: static CSS linked with the chunks that show tables.
import './data-table.css';

/**
 * Every table of records in the app (ADR 021). On a wide screen, rows; on a phone each row is a card
 * whose cells are labelled from their `data-label` (a cell without one, such as the actions, gets no
 * label), and the header row keeps only its sort buttons (`th[data-sortable]`), as a wrapping row.
 * Pure CSS (data-table.css), so the server's HTML is already the right one; screens only put
 * `data-label` on cells.
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
    white-space: nowrap;
  }
`;

