import { Button, Flash } from '@primer/react';
import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import type { EntityDef, EntityRecord } from '../../shared/entity/define.ts';
import type { EditConflicts } from './edit-conflict.ts';
import { FieldValue } from './field-value.tsx';

/** A long text (a biography) is shown by its start: the field itself holds the whole. */
const SHOWN_CHARS = 160;

/** One side's value of a field, as a detail view shows it; `record` lends a reference its label. */
function ValueOf({ def, name, value, record }: { def: EntityDef; name: string; value: unknown; record: EntityRecord | null }) {
  const field = def.fields[name]!;
  const shown = typeof value === 'string' && value.length > SHOWN_CHARS ? `${value.slice(0, SHOWN_CHARS)}…` : value;
  const labelled = record && record[name] === value ? record[`${name}_label`] : undefined;
  return <FieldValue def={def} name={name} field={field} record={{ id: 0, version: 0, [name]: shown, [`${name}_label`]: labelled } as EntityRecord} />;
}

/** A field both changed: its name, their value and the user's, and the choice between them. */
function ConflictRow({
  def,
  name,
  theirs,
  mine,
  base,
  onResolve,
}: {
  def: EntityDef;
  name: string;
  theirs: unknown;
  mine: unknown;
  base: EntityRecord | null;
  onResolve: EditConflicts['resolve'];
}) {
  const { t } = useTranslation();
  const labelId = useId();
  return (
    <div role="group" aria-labelledby={labelId} data-testid={`conflict-${name}`} style={{ margin: '8px 0' }}>
      <strong id={labelId}>{t(`resources.${def.name}.fields.${name}`)}</strong>
      <div data-testid={`conflict-${name}-theirs`}>
        {t('editConflict.theirs')}: <ValueOf def={def} name={name} value={theirs} record={base} />
      </div>
      <div data-testid={`conflict-${name}-mine`}>
        {t('editConflict.yours')}: <ValueOf def={def} name={name} value={mine} record={null} />
      </div>
      <div style={{ display: 'flex', gap: 8, marginTop: 4 }}>
        <Button size="small" type="button" onClick={() => onResolve(name, 'theirs')}>
          {t('editConflict.useTheirs')}
        </Button>
        <Button size="small" type="button" onClick={() => onResolve(name, 'mine')}>
          {t('editConflict.keepMine')}
        </Button>
      </div>
    </div>
  );
}

/**
 * Above a form's fields: the record changed while the user was editing it (ADR 063). Names each field
 * both changed with their value and the user's and a choice per field; lists the fields only they changed
 * (now in the form); offers to give up the edits and start from their version. Until every field is
 * decided the form does not save (the notice says so when the user tried).
 */
export function ConflictNotice({ def, conflicts, onReload }: { def: EntityDef; conflicts: EditConflicts; onReload: () => void }) {
  const { t } = useTranslation();
  const { notice, base, resolve, undecided, blocked, dismiss } = conflicts;
  const open = Object.entries(notice.conflicts);
  const updated = Object.entries(notice.updated).filter(([name]) => def.fields[name]);
  if (open.length === 0 && updated.length === 0 && !notice.refused) return null;
  return (
    <Flash variant="warning" style={{ gridColumn: '1 / -1' }} role="status" data-testid="changed-elsewhere">
      <p style={{ margin: 0 }}>{t(notice.refused ? 'editConflict.staleSave' : 'editConflict.changedElsewhere')}</p>
      {open.length > 0 && (
        <div style={{ margin: '8px 0' }}>
          {open.map(([name, conflict]) => (
            <ConflictRow key={name} def={def} name={name} theirs={conflict.theirs} mine={conflict.mine} base={base} onResolve={resolve} />
          ))}
        </div>
      )}
      {updated.length > 0 && (
        <p style={{ margin: '8px 0' }} data-testid="changed-elsewhere-taken">
          {t('editConflict.takenTheirs')}{' '}
          {updated.map(([name, value], i) => (
            <span key={name}>
              {i > 0 && ', '}
              <strong>{t(`resources.${def.name}.fields.${name}`)}</strong>: <ValueOf def={def} name={name} value={value} record={base} />
            </span>
          ))}
        </p>
      )}
      {blocked && (
        <p role="alert" style={{ margin: '8px 0', fontWeight: 600 }} data-testid="conflict-undecided">
          {t('editConflict.decideFirst')}
        </p>
      )}
      <div style={{ display: 'flex', gap: 8 }}>
        <Button size="small" type="button" onClick={onReload}>
          {t('form.reload')}
        </Button>
        {!undecided && (
          <Button size="small" type="button" onClick={dismiss}>
            {t('editConflict.acknowledge')}
          </Button>
        )}
      </div>
    </Flash>
  );
}
