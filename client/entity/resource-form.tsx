import { Button, Flash } from '@primer/react';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import styled from 'styled-components';
import { createSchema, writableFields, type EntityDef, type EntityRecord } from '../../shared/entity/define.ts';
import { fieldErrorsOf as zodFieldErrors } from '../../shared/schemas/common.ts';
import { useUnsavedChangesGuard } from '../components/use-unsaved-guard.ts';
import { appCodeOf, errorText, fieldErrorsOf } from '../errors.ts';
import { useToast } from '../shell/toasts.tsx';
import { entityApi, useEntityUtils } from './entity-api.ts';
import { FieldInput } from './field-input.tsx';

const Grid = styled.form`
  display: grid;
  grid-template-columns: repeat(auto-fit, minmax(260px, 1fr));
  gap: 16px;
  align-items: start;
`;

const Actions = styled.div`
  grid-column: 1 / -1;
  display: flex;
  gap: 8px;
`;

function initialValues(def: EntityDef, record: EntityRecord | null): Record<string, unknown> {
  return Object.fromEntries(
    writableFields(def).map(([key, field]) => {
      const value = record ? record[key] : field.default;
      return [key, value === undefined ? (field.kind === 'boolean' ? false : null) : value];
    }),
  );
}

interface Props {
  def: EntityDef;
  record: EntityRecord | null;
  onSaved: (record: EntityRecord) => void;
  onCancel?: () => void;
  /** Asked before saving (e.g. the bicycle form's confirm-changes dialog). */
  confirmSave?: () => Promise<boolean>;
}

/**
 * The generic create/edit form. The entity's zod schema validates here and again on the server;
 * server field errors land on the same fields; a stale version (409) is reported, not overwritten.
 */
export function ResourceForm({ def, record, onSaved, onCancel, confirmSave }: Props) {
  const { t } = useTranslation();
  const toast = useToast();
  const api = entityApi(def);
  const utils = useEntityUtils(def);
  const create = api.create.useMutation();
  const update = api.update.useMutation();
  const initial = useMemo(() => initialValues(def, record), [def, record]);
  const [values, setValues] = useState(initial);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [conflict, setConflict] = useState(false);
  const dirty = useMemo(() => JSON.stringify(values) !== JSON.stringify(initial), [values, initial]);
  useUnsavedChangesGuard(dirty);
  const schema = useMemo(() => createSchema(def), [def]);
  const pending = create.isPending || update.isPending;

  const set = (key: string, value: unknown) => {
    setValues((current) => ({ ...current, [key]: value }));
    setErrors(({ [key]: _gone, ...rest }) => rest);
  };

  const reload = async () => {
    if (!record) return;
    await utils.get.invalidate({ id: record.id });
    setConflict(false);
  };

  const onSubmit = async (event: React.FormEvent) => {
    event.preventDefault();
    setFormError(null);
    const parsed = schema.safeParse(values);
    if (!parsed.success) {
      setErrors(zodFieldErrors(parsed.error));
      return;
    }
    if (confirmSave && !(await confirmSave())) return;
    try {
      const saved = record
        ? await update.mutateAsync({ id: record.id, version: record.version, data: parsed.data as Record<string, unknown> })
        : await create.mutateAsync(parsed.data as Record<string, unknown>);
      await Promise.all([utils.list.invalidate(), utils.options.invalidate()]);
      utils.get.setData({ id: saved.id }, saved);
      toast.success(t(record ? 'form.saved' : 'form.created', { name: def.label(saved) }));
      setErrors({});
      onSaved(saved);
    } catch (error) {
      if (appCodeOf(error) === 'conflict') {
        setConflict(true);
        return;
      }
      setErrors(fieldErrorsOf(error));
      setFormError(errorText(t, error));
    }
  };

  return (
    <Grid onSubmit={onSubmit} noValidate data-testid={`form-${def.name}`}>
      {conflict && (
        <Flash variant="warning" style={{ gridColumn: '1 / -1' }} role="alert" data-testid="conflict">
          {t('form.conflict')}{' '}
          <Button size="small" onClick={reload} type="button">
            {t('form.reload')}
          </Button>
        </Flash>
      )}
      {formError && (
        <Flash variant="danger" style={{ gridColumn: '1 / -1' }} role="alert" data-testid="form-error">
          {formError}
        </Flash>
      )}
      {writableFields(def)
        .filter(([, field]) => !field.hidden)
        .map(([key, field]) => (
          <div key={key} style={field.multiline || field.kind === 'image' ? { gridColumn: '1 / -1' } : undefined}>
            <FieldInput def={def} name={key} field={field} value={values[key]} error={errors[key]} onChange={(v) => set(key, v)} />
          </div>
        ))}
      <Actions>
        <Button type="submit" variant="primary" loading={pending} data-testid="form-save">
          {t(record ? 'form.save' : 'form.create')}
        </Button>
        {onCancel && (
          <Button type="button" onClick={onCancel}>
            {t('form.cancel')}
          </Button>
        )}
      </Actions>
    </Grid>
  );
}
