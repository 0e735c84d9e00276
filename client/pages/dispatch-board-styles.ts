import styled from 'styled-components';

/** The dispatch board's styled parts: the toolbar, the tray of requests, the columns, the slots and the cards. */
export const Toolbar = styled.div`
  display: flex;
  flex-wrap: wrap;
  gap: 8px;
  align-items: center;
  margin: 12px 0 16px;
`;

export const Tray = styled.section`
  border: 1px dashed var(--borderColor-attention-emphasis, #9a6700);
  background: var(--bgColor-attention-muted, #fff8c5);
  border-radius: 8px;
  padding: 12px;
  margin-bottom: 20px;
  &[data-over='true'] {
    outline: 2px solid var(--focus-outlineColor, #0969da);
    outline-offset: -2px;
  }
  h2 {
    font-size: 16px;
    margin: 0 0 4px;
  }
  > p {
    margin: 0 0 8px;
    font-size: 13px;
  }
`;

export const CardList = styled.ul`
  list-style: none;
  margin: 0;
  padding: 0;
  display: grid;
  grid-template-columns: repeat(auto-fill, minmax(min(100%, 240px), 1fr));
  gap: 8px;
`;

/** Buddies side by side where there is room, one under the other on a phone: never a sideways page. */
export const Board = styled.div`
  display: grid;
  grid-template-columns: repeat(auto-fill, minmax(min(100%, 250px), 1fr));
  gap: 12px;
  align-items: start;
`;

export const Column = styled.section`
  border: 1px solid var(--borderColor-default, #d0d7de);
  border-radius: 8px;
  background: var(--bgColor-default, #fff);
  min-width: 0;
  header {
    padding: 8px 10px;
    border-bottom: 1px solid var(--borderColor-muted, #d8dee4);
  }
  h2 {
    font-size: 15px;
    margin: 0;
    overflow-wrap: anywhere;
  }
  header p {
    margin: 2px 0 0;
    font-size: 12px;
    color: var(--fgColor-muted, #59636e);
    overflow-wrap: anywhere;
  }
  header .email {
    margin: 0;
  }
  /* Set apart by a dashed border and a muted background, not by fading: faded text loses its contrast. */
  &[data-unscheduled='true'] {
    border-style: dashed;
    background: var(--bgColor-muted, #f6f8fa);
  }
`;

export const Cell = styled.div`
  padding: 8px 10px;
  border-top: 1px solid var(--borderColor-muted, #d8dee4);
  &:first-of-type {
    border-top: 0;
  }
  &[data-state='open'] {
    min-height: 56px;
  }
  &[data-state='closed'] {
    background: repeating-linear-gradient(135deg, transparent 0 6px, var(--bgColor-neutral-muted, #afb8c133) 6px 12px);
  }
  &[data-over='true'] {
    outline: 2px solid var(--focus-outlineColor, #0969da);
    outline-offset: -2px;
    background: var(--bgColor-accent-muted, #ddf4ff);
  }
  &[data-over='true'][data-refusal] {
    outline-color: var(--borderColor-danger-emphasis, #cf222e);
    background: var(--bgColor-danger-muted, #ffebe9);
  }
  .cell-head {
    display: flex;
    flex-wrap: wrap;
    justify-content: space-between;
    gap: 4px 8px;
    font-size: 12px;
  }
  .cell-head + * {
    margin-top: 6px;
  }
  .cell-head strong {
    font-size: 13px;
  }
  ul {
    list-style: none;
    margin: 0;
    padding: 0;
    display: grid;
    gap: 6px;
  }
`;

export const Card = styled.div`
  display: flex;
  align-items: stretch;
  border-radius: 6px;
  border-left: 4px solid var(--card-border);
  background: var(--card-background);
  color: var(--fgColor-default, #1f2328);
  font-size: 13px;
  min-width: 0;
  &[draggable='true'] {
    cursor: grab;
  }
  &[data-picked='true'] {
    outline: 2px solid var(--focus-outlineColor, #0969da);
    outline-offset: 1px;
  }
  .pick {
    all: unset;
    flex: 1;
    min-width: 0;
    padding: 6px 8px;
    overflow-wrap: anywhere;
    cursor: inherit;
  }
  .pick:focus-visible {
    outline: 2px solid var(--focus-outlineColor, #0969da);
  }
  .pick span {
    display: block;
  }
  .meta {
    color: var(--fgColor-muted, #59636e);
    font-size: 12px;
  }
  a {
    display: flex;
    align-items: center;
    padding: 0 8px;
    color: var(--fgColor-muted, #59636e);
  }
`;
