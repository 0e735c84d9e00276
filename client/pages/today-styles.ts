import styled from 'styled-components';
import { SERVICE_STATUS } from '../../shared/entities/services.ts';

/** The Today page's styled parts: the day's header, the stops and their cards, the banner and the alerts. */
export const Top = styled.div`
  display: flex;
  flex-wrap: wrap;
  align-items: center;
  justify-content: space-between;
  gap: 8px 16px;
  margin-bottom: 12px;
  h1 {
    margin: 0;
  }
`;

export const DayNav = styled.nav`
  display: flex;
  align-items: center;
  gap: 8px;
  a {
    display: inline-flex;
    align-items: center;
    justify-content: center;
    min-width: 44px;
    min-height: 44px;
    padding: 0 10px;
    border: 1px solid var(--borderColor-default, #d0d7de);
    border-radius: 8px;
    color: var(--fgColor-default, #1f2328);
    background: var(--bgColor-muted, #f6f8fa);
    text-decoration: none;
    font-size: 14px;
  }
`;

/** One column on a phone; the stops beside a sticky map from 1024 px. */
export const Layout = styled.div`
  display: grid;
  gap: 16px;
  align-items: start;
  @media (min-width: 1024px) {
    grid-template-columns: minmax(0, 1fr) minmax(320px, 42%);
    > aside {
      position: sticky;
      top: 72px;
    }
  }
`;

export const Stops = styled.ol`
  list-style: none;
  margin: 0;
  padding: 0;
  display: grid;
  gap: 12px;
`;

export const Card = styled.li`
  display: grid;
  gap: 8px;
  padding: 12px;
  border: 1px solid var(--borderColor-default, #d0d7de);
  border-left-width: 4px;
  border-radius: 10px;
  background: var(--bgColor-default, #fff);
  min-width: 0;
  font-size: 15px;
  &[data-status='1'] {
    border-left-color: var(--borderColor-attention-emphasis, #9a6700);
  }
  &[data-status='2'] {
    border-left-color: var(--borderColor-accent-emphasis, #0969da);
  }
  &[data-status='${SERVICE_STATUS.Finished}'] {
    border-left-color: var(--borderColor-success-emphasis, #1a7f37);
  }
  &[data-canceled='true'] {
    color: var(--fgColor-muted, #59636e);
    border-left-color: var(--borderColor-default, #d0d7de);
  }
  p {
    margin: 0;
  }
  a {
    color: var(--fgColor-accent, #0969da);
    /* Links in running text are told apart by more than their colour (axe link-in-text-block). */
    text-decoration: underline;
  }
  &[data-step='queued'] {
    border-style: dashed;
  }
  .stop-note {
    display: grid;
    gap: 6px;
    padding: 8px 10px;
    border-radius: 6px;
    background: var(--bgColor-attention-muted, #fff8c5);
    border: 1px solid var(--borderColor-attention-emphasis, #9a6700);
    ul {
      margin: 0;
      padding-left: 20px;
    }
    button {
      min-height: 44px;
    }
  }
  .stop-note-actions {
    display: flex;
    flex-wrap: wrap;
    gap: 8px;
  }
`;

/** Says the phone is offline (and what happens to the buddy's steps), or that kept steps are being sent. */
export const Banner = styled.p`
  margin: 0 0 12px;
  padding: 10px 12px;
  border-radius: 8px;
  background: var(--bgColor-neutral-emphasis, #59636e);
  color: var(--fgColor-onEmphasis, #fff);
  font-size: 15px;
  &:empty {
    padding: 0;
    margin: 0;
  }
`;

export const CardHead = styled.div`
  display: flex;
  align-items: center;
  flex-wrap: wrap;
  gap: 8px;
  time {
    font-weight: 600;
    font-variant-numeric: tabular-nums;
  }
`;

export const StopNumber = styled.span`
  display: inline-flex;
  align-items: center;
  justify-content: center;
  width: 28px;
  height: 28px;
  border-radius: 50%;
  background: #0969da;
  color: #fff;
  font-weight: 600;
  font-size: 14px;
  flex-shrink: 0;
  &[data-done='true'] {
    background: #1a7f37;
  }
  &[data-outside='true'] {
    background: #cf222e;
  }
`;

export const Muted = styled.span`
  color: var(--fgColor-muted, #59636e);
  font-size: 13px;
`;

export const Flag = styled.span`
  display: inline-block;
  margin-left: 6px;
  padding: 0 8px;
  border-radius: 999px;
  font-size: 12px;
  line-height: 20px;
  color: var(--fgColor-danger, #d1242f);
  border: 1px solid var(--borderColor-danger-emphasis, #cf222e);
`;

/** Big buttons at the bottom of a card, where a thumb reaches them (at least 48 px high; the label may wrap). */
export const Actions = styled.div`
  display: grid;
  grid-template-columns: repeat(auto-fit, minmax(120px, 1fr));
  gap: 8px;
  margin-top: 4px;
  &:empty {
    display: none;
  }
  button {
    min-height: 48px;
    height: auto;
    min-width: 0;
    white-space: normal;
    padding: 0 12px;
    border-radius: 8px;
    font-size: 16px;
    font-weight: 600;
  }
  button:focus-visible {
    outline: 2px solid var(--focus-outlineColor, #0969da);
    outline-offset: 2px;
  }
`;

export const Alert = styled.p`
  padding: 8px 10px;
  border-radius: 6px;
  border: 1px solid var(--borderColor-danger-emphasis, #cf222e);
  background: var(--bgColor-danger-muted, #ffebe9);
  color: var(--fgColor-danger, #d1242f);
`;
