import styled from 'styled-components';
import { PHONE_MEDIA } from './breakpoints.ts';

/**
 * Every table of records in the app (ADR 021). On a wide screen, rows; on a phone each row is a card
 * whose cells are labelled from their `data-label` (a cell without one, such as the actions, gets no
 * label), and the header row keeps only its sort buttons (`th[data-sortable]`), as a wrapping row.
 * Pure CSS, so the server's HTML is already the right one; screens only put `data-label` on cells.
 */
export const DataTable = styled.table`
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
  ${PHONE_MEDIA} {
    &,
    thead,
    tbody,
    tr,
    td {
      display: block;
    }
    thead tr {
      display: flex;
      flex-wrap: wrap;
      gap: 6px;
      margin-bottom: 10px;
    }
    thead th {
      display: none;
    }
    thead th[data-sortable] {
      display: block;
      padding: 4px 10px;
      border: 1px solid var(--borderColor-default, #d0d7de);
      border-radius: 999px;
      font-size: 13px;
      font-weight: 400;
      background: var(--bgColor-default, #fff);
    }
    thead th[aria-sort='ascending'],
    thead th[aria-sort='descending'] {
      font-weight: 600;
      border-color: var(--borderColor-accent-emphasis, #0969da);
    }
    tbody tr {
      margin-bottom: 12px;
      padding: 4px 12px;
      border: 1px solid var(--borderColor-default, #d0d7de);
      border-radius: 8px;
      background: var(--bgColor-default, #fff);
    }
    tbody td {
      display: grid;
      grid-template-columns: minmax(88px, 38%) minmax(0, 1fr);
      gap: 8px;
      align-items: baseline;
      padding: 6px 0;
      overflow-wrap: anywhere;
      white-space: normal;
    }
    tbody td:last-child {
      border-bottom: 0;
    }
    tbody td[data-label]::before {
      content: attr(data-label);
      font-size: 12px;
      font-weight: 600;
      color: var(--fgColor-muted, #59636e);
    }
    tbody td:not([data-label]) {
      display: flex;
      flex-wrap: wrap;
      justify-content: flex-end;
      gap: 8px;
    }
    tbody td:not([data-label]):empty {
      display: none;
    }
  }
`;

/** The search and filters above a table: a wrapping row; on a phone one full-width control per line. */
export const FilterBar = styled.div`
  display: flex;
  flex-wrap: wrap;
  gap: 8px;
  align-items: center;
  margin: 16px 0;
  select {
    max-width: 280px;
  }
  ${PHONE_MEDIA} {
    > *,
    select {
      flex: 1 1 100%;
      max-width: 100%;
    }
  }
`;
