import { Button, Flash } from '@primer/react';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import styled from 'styled-components';
import { labelOf, writableFields, type EntityDef, type EntityRecord } from '../../shared/entity/define.ts';
import { createSchema } from '../../shared/entity/schemas.ts';
import { isWithinRange, type OperationRange } from '../../shared/geo.ts';
import { LocationInput, pointOf } from '../components/location-input.tsx';
import { usePublicConfig } from '../public-config.tsx';
import { useAccess } from './access.ts';
import { fieldErrorsOf as zodFieldErrors } from '../../shared/schemas/messages.ts';
import { useUnsavedChangesGuard } from '../components/use-unsaved-guard.ts';
import { appCodeOf, errorText, fieldErrorsOf } from '../errors.ts';
import { useToast } from '../shell/toasts.tsx';
import { entityApi, useEntityUtils } from './entity-api.ts';
import { FieldInput } from './field-input.tsx';
import { ConflictNotice } from './conflict-notice.tsx';
import { useEditConflicts } from './edit-conflict.ts';

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

/** A field's starting value: fixed by the page, else the record's, else a preset (new records), else its default. */
function initialValues(def: EntityDef, record: EntityRecord | null, preset: Record<string, unknown>, fixed: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    writableFields(def).map(([key, field]) => {
      const value = key in fixed ? fixed[key] : record ? record[key] : key in preset ? preset[key] : field.default;
      return [key, value === undefined ? (field.kind === 'boolean' ? false : null) : value];
    }),
  );
}

const NO_FIXED: Record<string, unknown> = {};

interface Props {
  def: EntityDef;
  record: EntityRecord | null;
  onSaved: (record: EntityRecord) => void;
  onCancel?: () => void;
  /** Asked before saving (e.g. the bicycle form's confirm-changes dialog). */
  confirmSave?: () => Promise<boolean>;
  /** Values a new record starts with (e.g. the day and slot picked in a calendar). */
  preset?: Record<string, unknown>;
  /** Values the surrounding page decides (a slot's event): saved, not shown. */
  fixedValues?: Record<string, unknown>;
  /** Told whenever the form gains or loses unsaved changes (a dialog asks before closing). */
  onDirtyChange?: (dirty: boolean) => void;
}

/**
 * The form's values and field errors, and the record version the edits are based on: a newer version
 * reaching the form (someone else's save, another tab's) is merged with the edits field by field, a field
 * both changed waiting for the user's choice (useEditConflicts, ADR 063).
 */
function useEditedValues(
  def: EntityDef,
  record: EntityRecord | null,
  preset: Record<string, unknown>,
  fixedValues: Record<string, unknown>,
  onDirtyChange?: (dirty: boolean) => void,
) {
  const valuesOf = (from: EntityRecord | null) => initialValues(def, from, preset, fixedValues);
  const [values, setValues] = useState(() => valuesOf(record));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const conflicts = useEditConflicts({ entity: def.name, record, valuesOf, values, setValues });
  useUnsavedChangesGuard(conflicts.dirty);
  useEffect(() => onDirtyChange?.(conflicts.dirty), [conflicts.dirty, onDirtyChange]);

  const set = (key: string, value: unknown) => {
    setValues((current) => ({ ...current, [key]: value }));
    setErrors(({ [key]: _gone, ...rest }) => rest);
  };
  return { values, errors, setErrors, set, conflicts };
}

/** The values as the schema parses them, or the field errors: the schema's, and a place outside the operation range. */
function validate(
  def: EntityDef,
  schema: ReturnType<typeof createSchema>,
  values: Record<string, unknown>,
  map: OperationRange,
): { data: Record<string, unknown> } | { errors: Record<string, string> } {
  const parsed = schema.safeParse(values);
  const location = def.location;
  const point = location ? pointOf(location, values) : null;
  const outside = location?.withinOperationRange && point && !isWithinRange(map, point) ? { [location.address]: 'validation.invalidAddress' } : {};
  if (!parsed.success || Object.keys(outside).length > 0) return { errors: { ...(parsed.success ? {} : zodFieldErrors(parsed.error)), ...outside } };
  return { data: parsed.data as Record<string, unknown> };
}

interface FieldsProps {
  def: EntityDef;
  fixedValues: Record<string, unknown>;
  values: Record<string, unknown>;
  errors: Record<string, string>;
  set: (key: string, value: unknown) => void;
  base: EntityRecord | null;
}

/** An input for each writable field the page does not fix; a location's three fields are one input. */
function FormFields({ def, fixedValues, values, errors, set, base }: FieldsProps) {
  const access = useAccess(def);
  return writableFields(def)
    .filter(([key, field]) => !field.hidden && !(key in fixedValues) && !(def.location && (key === def.location.latitude || key === def.location.longitude)))
    .map(([key, field]) =>
      def.location && key === def.location.address ? (
        <div key={key} style={{ gridColumn: '1 / -1' }}>
          <LocationInput
            def={def}
            location={def.location}
            values={values}
            errors={errors}
            required={Boolean(def.fields[def.location.latitude]?.required)}
            onChange={(patch) => Object.entries(patch).forEach(([k, v]) => set(k, v))}
          />
        </div>
      ) : (
        <div key={key} style={field.multiline || field.kind === 'image' ? { gridColumn: '1 / -1' } : undefined}>
          <FieldInput
            def={def}
            name={key}
            field={field}
            value={values[key]}
            error={errors[key]}
            onChange={(v) => set(key, v)}
            record={base}
            fixedText={access.ownerScoped && key === access.ownerField ? (base ? String(base[`${key}_label`] ?? access.userLabel) : access.userLabel) : undefined}
          />
        </div>
      ),
    );
}

/**
 * The generic create/edit form. The entity's zod schema validates here and again on the server;
 * server field errors land on the same fields; a stale version (409) is merged with the edits, never overwritten.
 */
export function ResourceForm({ def, record, onSaved, onCancel, confirmSave, preset, fixedValues = NO_FIXED, onDirtyChange }: Props) {
  const { t, i18n } = useTranslation();
  const toast = useToast();
  const api = entityApi(def);
  const utils = useEntityUtils(def);
  const create = api.create.useMutation();
  const update = api.update.useMutation();
  const access = useAccess(def);
  const { map } = usePublicConfig();
  // Someone who only writes their own records writes them as themselves (ADR 009).
  const owned = access.ownerScoped && access.ownerField && access.userId !== null ? { [access.ownerField]: access.userId } : {};
  const { values, errors, setErrors, set, conflicts } = useEditedValues(def, record, { ...preset, ...owned }, fixedValues, onDirtyChange);
  const base = conflicts.base;
  const [formError, setFormError] = useState<string | null>(null);
  const schema = useMemo(() => createSchema(def), [def]);
  const pending = create.isPending || update.isPending;

  /** The record as it is now on the server. */
  const fetchFresh = async (id: number) => {
    await utils.get.invalidate({ id });
    return utils.get.fetch({ id });
  };
  // Giving the edits up: the record as it is now.
  const reload = async () => {
    if (!base) return;
    conflicts.reset(await fetchFresh(base.id));
    setErrors({});
    await utils.list.invalidate();
  };

  const onSubmit = async (event: React.FormEvent) => {
    event.preventDefault();
    setFormError(null);
    const checked = validate(def, schema, values, map);
    if ('errors' in checked) {
      setErrors(checked.errors);
      return;
    }
    if (!conflicts.maySave() || (confirmSave && !(await confirmSave()))) return;
    try {
      const saved = base ? await update.mutateAsync({ id: base.id, version: base.version, data: checked.data }) : await create.mutateAsync(checked.data);
      await Promise.all([utils.list.invalidate(), utils.options.invalidate()]);
      utils.get.setData({ id: saved.id }, saved);
      toast.success((t) => t(base ? (def.messages?.saved ?? 'form.saved') : (def.messages?.created ?? 'form.created'), { name: labelOf(def, saved, i18n.language) }));
      setErrors({});
      if (base) conflicts.reset(saved);
      onSaved(saved);
    } catch (error) {
      // Saved by someone else first: their version merged with the edits, nothing lost or overwritten.
      if (appCodeOf(error) === 'conflict' && base) return conflicts.refusedWith(await fetchFresh(base.id));
      setErrors(fieldErrorsOf(error));
      setFormError(errorText(t, error));
    }
  };

  return (
    <Grid onSubmit={onSubmit} noValidate data-testid={`form-${def.name}`}>
      <ConflictNotice def={def} conflicts={conflicts} onReload={() => void reload()} />
      {formError && (
        <Flash variant="danger" style={{ gridColumn: '1 / -1' }} role="alert" data-testid="form-error">
          {formError}
        </Flash>
      )}
      <FormFields def={def} fixedValues={fixedValues} values={values} errors={errors} set={set} base={base} />
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
