import { FormControl, TextInput, Textarea } from '@primer/react';
import { useTranslation } from 'react-i18next';
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

/** A labelled input whose error message is an i18n key or upstream text. */
export function TextField({ name, label, value, onChange, error, type = 'text', required, autoComplete, multiline, maxLength, caption, disabled }: Props) {
  const { t } = useTranslation();
  const message = fieldText(t, error);
  return (
    <FormControl required={required} disabled={disabled}>
      <FormControl.Label>{label}</FormControl.Label>
      {multiline ? (
        <Textarea name={name} value={value ?? ''} onChange={(e) => onChange(e.target.value)} block validationStatus={message ? 'error' : undefined} maxLength={maxLength} />
      ) : (
        <TextInput
          name={name}
          type={type}
          value={value ?? ''}
          onChange={(e) => onChange(e.target.value)}
          block
          autoComplete={autoComplete}
          validationStatus={message ? 'error' : undefined}
          maxLength={maxLength}
        />
      )}
      {caption && <FormControl.Caption>{caption}</FormControl.Caption>}
      {message && <FormControl.Validation variant="error">{message}</FormControl.Validation>}
    </FormControl>
  );
}
