import { Checkbox, FormControl, Label, Select, TextInput, Textarea } from '@primer/react';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { isOverdue, nextStatuses, type EntityDef, type EntityRecord, type FieldDef } from '../../shared/entity/define.ts';
import { useSession } from '../session.ts';
import { ImageUpload } from '../components/image-upload.tsx';
import { fieldText } from '../errors.ts';
import { ReferencePicker } from './reference-choices.tsx';
import { todayIso } from '../components/calendar-dates.ts';

interface Props {
  def: EntityDef;
  name: string;
  field: FieldDef;
  value: unknown;
  error?: string;
  onChange: (value: unknown) => void;
  /** The record being edited (null when creating): a status offers only the steps allowed from it. */
  record?: EntityRecord | null;
  /** Shown instead of a control when the value is fixed for this user (their own owner field). */
  fixedText?: string;
}

const INPUT_TYPE: Partial<Record<FieldDef['kind'], string>> = {
  email: 'email',
  phone: 'tel',
  url: 'url',
  integer: 'number',
  decimal: 'number',
  money: 'number',
  date: 'date',
  time: 'time',
  datetime: 'datetime-local',
};

type ControlProps = Pick<Props, 'def' | 'name' | 'field' | 'value' | 'onChange' | 'record'> & { invalid: boolean };

// The controls below are elements of Primer's own input types, not components of ours: FormControl gives
// its label's id only to a child it recognises as an input.

/** An enum's choices; a status offers where the record may go next (ADR 009), a new record the statuses it may start in. */
function enumSelect({ def, name, field, value, onChange, record, invalid }: ControlProps, t: TFunction, roles: readonly string[]) {
  const choices = field.status ? (record ? [Number(record[name]), ...nextStatuses(field.status, Number(record[name]), roles)] : [...field.status.initial]) : (field.options ?? []);
  return (
    <Select
      value={value === null || value === undefined ? '' : String(value)}
      onChange={(e) => onChange(e.target.value === '' ? null : (field.options ?? []).find((o) => String(o) === e.target.value))}
      block
      validationStatus={invalid ? 'error' : undefined}
      data-field={name}
    >
      {!(field.status && record) && <Select.Option value="">{t('form.none')}</Select.Option>}
      {choices.map((option) => (
        <Select.Option key={String(option)} value={String(option)}>
          {t(`resources.${def.name}.options.${name}.${String(option)}`, { defaultValue: String(option) })}
        </Select.Option>
      ))}
    </Select>
  );
}

/** A text input typed by the field's kind (e-mail, number, date …); money with its currency. */
function plainInput({ name, field, value, onChange, invalid }: Omit<ControlProps, 'def' | 'record'>) {
  const numeric = field.kind === 'integer' || field.kind === 'decimal' || field.kind === 'money';
  return (
    <TextInput
      name={name}
      type={INPUT_TYPE[field.kind] ?? 'text'}
      value={value === null || value === undefined ? '' : String(value)}
      onChange={(e) => onChange(e.target.value)}
      block
      step={field.kind === 'integer' ? 1 : numeric ? 0.01 : undefined}
      trailingVisual={field.kind === 'money' && field.currency === 'sek' ? 'kr' : undefined}
      leadingVisual={field.kind === 'money' && field.currency === 'gbp' ? '£' : undefined}
      validationStatus={invalid ? 'error' : undefined}
      data-field={name}
    />
  );
}

/** One form control for one field, chosen by the field's kind. */
export function FieldInput({ def, name, field, value, error, onChange, record, fixedText }: Props) {
  const { t } = useTranslation();
  const { roles } = useSession();
  const label = t(`resources.${def.name}.fields.${name}`);
  const message = fieldText(t, error);
  const invalid = Boolean(message);

  if (field.kind === 'boolean') {
    return (
      <FormControl>
        <Checkbox checked={Boolean(value)} onChange={(e) => onChange(e.target.checked)} name={name} />
        <FormControl.Label>{label}</FormControl.Label>
        {message && <FormControl.Validation variant="error">{message}</FormControl.Validation>}
      </FormControl>
    );
  }

  let control;
  if (fixedText !== undefined) {
    control = <TextInput name={name} value={fixedText} readOnly disabled block aria-label={label} data-field={name} />;
  } else if (field.kind === 'image') {
    // The picture field shows its own message (also for a stored value that is not one of our uploads).
    control = <ImageUpload kind={field.uploadKind ?? 'company_logo'} value={(value as string | null) ?? null} onChange={(url) => onChange(url)} label={label} error={message} />;
  } else if (field.kind === 'enum') {
    control = enumSelect({ def, name, field, value, onChange, record, invalid }, t, roles);
  } else if (field.kind === 'reference') {
    // The stored value is always among the choices, however long the list.
    const stored = record?.[name];
    control = (
      <ReferencePicker
        reference={field.reference!}
        value={value === null || value === undefined || value === '' ? null : Number(value)}
        include={typeof stored === 'number' ? stored : null}
        onChange={onChange}
        label={label}
        emptyLabel={t('form.none')}
        invalid={invalid}
        stacked
        activeOnly
        name={name}
      />
    );
  } else if (field.multiline) {
    control = <Textarea name={name} value={(value as string | null) ?? ''} onChange={(e) => onChange(e.target.value)} block validationStatus={invalid ? 'error' : undefined} />;
  } else {
    control = plainInput({ name, field, value, onChange, invalid });
  }

  return (
    <FormControl required={field.required}>
      <FormControl.Label>{label}</FormControl.Label>
      {control}
      {record && isOverdue(field, value, record, todayIso()) && (
        <FormControl.Caption>
          <Label variant="danger" data-testid={`overdue-${name}`}>
            {t('common.overdue')}
          </Label>
        </FormControl.Caption>
      )}
      {field.kind === 'text' && field.max && !field.multiline ? <FormControl.Caption>{t('form.maxLength', { max: field.max })}</FormControl.Caption> : null}
      {message && field.kind !== 'image' && <FormControl.Validation variant="error">{message}</FormControl.Validation>}
    </FormControl>
  );
}
