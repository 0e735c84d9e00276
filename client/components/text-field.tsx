import { TextInput, Textarea } from '@primer/react';
import { AlertFillIcon } from '@primer/octicons-react';
import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import styled from 'styled-components';
import { fieldText } from '../errors.ts';

interface Props {
  name: string;
  label: string;
  value: string | null | undefined;
  onChange: (value: string) => void;
  error?: string;
  type?: 'text' | 'email' | 'password' | 'tel' | 'url' | 'number' | 'date' | 'time' | 'datetime-local';
  required?: boolean;
  autoComplete?: string;
  multiline?: boolean;
  maxLength?: number;
  caption?: string;
  disabled?: boolean;
}

// Laid out like Primer's FormControl, without it: FormControl imports Autocomplete, SelectPanel and
// TextInputWithTokens (to recognise them among its children), ~40 KB gzip that a sign-in form never uses.
const Field = styled.div`
  display: flex;
  flex-direction: column;
  align-items: flex-start;
  gap: var(--base-size-4, 4px);
  & > :where(span, div) {
    align-self: stretch;
  }
`;
const Label = styled.label<{ $disabled?: boolean }>`
  font-size: var(--text-body-size-medium, 14px);
  font-weight: var(--base-text-weight-semibold, 600);
  color: ${(p) => (p.$disabled ? 'var(--fgColor-disabled, #818b98)' : 'var(--fgColor-default, #1f2328)')};
`;
const Caption = styled.span`
  font-size: var(--text-body-size-small, 12px);
  color: var(--fgColor-muted, #59636e);
`;
const Validation = styled.span`
  display: flex;
  gap: var(--base-size-4, 4px);
  align-items: center;
  font-size: var(--text-body-size-small, 12px);
  font-weight: var(--base-text-weight-semibold, 600);
  color: var(--fgColor-danger, #d1242f);
`;

/** A labelled input whose error message is an i18n key or upstream text. */
export function TextField({ name, label, value, onChange, error, type = 'text', required, autoComplete, multiline, maxLength, caption, disabled }: Props) {
  const { t } = useTranslation();
  const message = fieldText(t, error);
  const id = useId();
  const describedBy = [caption ? `${id}-caption` : '', message ? `${id}-validation` : ''].filter(Boolean).join(' ') || undefined;
  const common = {
    id,
    name,
    value: value ?? '',
    block: true,
    required,
    disabled,
    maxLength,
    validationStatus: message ? ('error' as const) : undefined,
    'aria-describedby': describedBy,
    'aria-invalid': message ? true : undefined,
  };
  return (
    <Field>
      <Label htmlFor={id} $disabled={disabled}>
        {label}
        {required && <span aria-hidden="true"> *</span>}
      </Label>
      {multiline ? (
        <Textarea {...common} onChange={(e) => onChange(e.target.value)} />
      ) : (
        <TextInput {...common} type={type} autoComplete={autoComplete} onChange={(e) => onChange(e.target.value)} />
      )}
      {caption && <Caption id={`${id}-caption`}>{caption}</Caption>}
      {message && (
        <Validation id={`${id}-validation`}>
          <AlertFillIcon size={12} />
          {message}
        </Validation>
      )}
    </Field>
  );
}
