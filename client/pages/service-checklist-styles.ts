import styled from 'styled-components';

/** The service checklist's styled parts: the items and the save bar. */
export const Items = styled.ol`
  list-style: none;
  margin: 0;
  padding: 0;
  display: grid;
  grid-template-columns: repeat(auto-fill, minmax(300px, 1fr));
  gap: 12px;
  > li {
    border: 1px solid var(--borderColor-default, #d0d7de);
    border-radius: 6px;
    padding: 12px;
    display: grid;
    gap: 10px;
    align-content: start;
    min-width: 0;
  }
  /* Thumb-size controls (ADR 043): every choice, checkbox and button of the checklist is at least 44 px high. */
  fieldset {
    border: 0;
    margin: 0;
    padding: 0;
    display: grid;
    grid-template-columns: repeat(auto-fit, minmax(96px, 1fr));
    gap: 8px;
    min-width: 0;
  }
  legend {
    padding: 0;
    margin-bottom: 6px;
    font-weight: 600;
    display: flex;
    gap: 8px;
    align-items: center;
    flex-wrap: wrap;
  }
  .choice,
  .repair {
    position: relative;
    display: flex;
    align-items: center;
    gap: 8px;
    min-height: 44px;
    padding: 6px 10px;
    border: 1px solid var(--borderColor-default, #d0d7de);
    border-radius: 8px;
    cursor: pointer;
    line-height: 1.25;
    font-size: 14px;
  }
  /* A choice is a button-like pill: its radio covers it (so a tap anywhere chooses) but is not drawn; the chosen
     one shows by its thicker border and bold text as well as its colour. */
  .choice {
    justify-content: center;
    text-align: center;
    padding: 6px 8px;
    overflow-wrap: normal;
    word-break: normal;
  }
  .choice input {
    position: absolute;
    inset: 0;
    width: 100%;
    height: 100%;
    margin: 0;
    opacity: 0;
    cursor: pointer;
  }
  .repair input {
    width: 20px;
    height: 20px;
    margin: 0;
    flex: none;
    accent-color: var(--fgColor-accent, #0969da);
  }
  .choice:has(input:checked) {
    border: 2px solid var(--borderColor-accent-emphasis, #0969da);
    background: var(--bgColor-accent-muted, #ddf4ff);
    font-weight: 600;
  }
  .choice:has(input:focus-visible),
  .repair:has(input:focus-visible) {
    outline: 2px solid var(--focus-outlineColor, #0969da);
    outline-offset: 1px;
  }
  button {
    min-height: 44px;
    min-width: 44px;
  }
`;

/** The checklist's one Save, kept in reach at the bottom of a phone's screen while the items scroll by. */
export const SaveBar = styled.div`
  position: sticky;
  bottom: 0;
  z-index: 1;
  margin-top: 12px;
  padding: 10px 0;
  display: flex;
  flex-wrap: wrap;
  gap: 8px 16px;
  align-items: center;
  background: var(--bgColor-default, #fff);
  border-top: 1px solid var(--borderColor-default, #d0d7de);
  button {
    min-height: 44px;
  }
  p {
    margin: 0;
    font-size: 14px;
  }
`;
