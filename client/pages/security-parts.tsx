import { Button, Flash } from '@primer/react';
import { useTranslation } from 'react-i18next';
import styled from 'styled-components';

/** The sign-in security page's own pieces (ADR 068, 075), shared by its sections. */
export const Section = styled.section`
  max-width: 760px;
  margin-bottom: 28px;
  display: flex;
  flex-direction: column;
  gap: 12px;
  align-items: flex-start;
`;
export const Row = styled.form`
  display: flex;
  gap: 8px;
  align-items: flex-end;
  flex-wrap: wrap;
`;
export const Codes = styled.ol`
  columns: 2;
  font-family: var(--fontStack-monospace, monospace);
  font-size: 15px;
  padding-left: 24px;
  margin: 0;
`;
export const Table = styled.table`
  border-collapse: collapse;
  width: 100%;
  & th,
  & td {
    text-align: left;
    padding: 6px 8px;
    border-bottom: 1px solid var(--borderColor-default, #d1d9e0);
    vertical-align: top;
  }
`;

/** Codes shown once: after enrolling, or when new ones replace the old. */
export function ShownOnce({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  const { t } = useTranslation();
  return (
    <Flash variant="success" data-testid="recovery-codes-shown">
      <p style={{ marginTop: 0 }}>{t('security.recoveryShownOnce')}</p>
      <Codes data-testid="recovery-codes" aria-label={t('security.recoveryCodes')}>
        {codes.map((code) => (
          <li key={code}>{code}</li>
        ))}
      </Codes>
      <Button style={{ marginTop: 12 }} onClick={onDone} data-testid="recovery-codes-done">
        {t('security.recoverySaved')}
      </Button>
    </Flash>
  );
}

/** Codes shown once after a first factor; done, the page loads anew: a sign-in that had to enrol can now open the app, past the server's guard. */
export function FirstFactorCodes({ codes, onDone }: { codes: string[] | null; onDone: () => void }) {
  if (!codes) return null;
  return (
    <ShownOnce
      codes={codes}
      onDone={() => {
        onDone();
        window.location.assign('/security');
      }}
    />
  );
}

/** A table's header row: the columns named, then the row actions' column (named for screen readers only). */
export function ActionTableHead({ columns }: { columns: string[] }) {
  const { t } = useTranslation();
  return (
    <thead>
      <tr>
        {columns.map((column) => (
          <th scope="col" key={column}>
            {column}
          </th>
        ))}
        <th scope="col">
          <span className="visually-hidden">{t('security.actions')}</span>
        </th>
      </tr>
    </thead>
  );
}
