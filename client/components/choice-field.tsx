import { FormControl, Select } from '@primer/react';
import { useTranslation } from 'react-i18next';
import { LANGUAGES } from '../../shared/languages.ts';
import { COUNTRIES } from '../../shared/schemas/common.ts';
import { fieldText } from '../errors.ts';

interface ChoiceFieldProps<V extends string | number> {
  label: string;
  value: V | null | undefined;
  options: readonly V[];
  optionLabel: (value: V) => string;
  onChange: (value: V | null) => void;
  /** Offers an empty choice ("Not set"). */
  nullable?: boolean;
  testId?: string;
  /** A validation message (i18n key or server text), shown under the select. */
  error?: string;
}

/** A labelled select over a fixed list of values (country, language, user type…). */
export function ChoiceField<V extends string | number>({ label, value, options, optionLabel, onChange, nullable = true, testId, error }: ChoiceFieldProps<V>) {
  const { t } = useTranslation();
  const message = fieldText(t, error);
  return (
    <FormControl>
      <FormControl.Label>{label}</FormControl.Label>
      <Select
        value={value === null || value === undefined ? '' : String(value)}
        onChange={(e) => onChange(options.find((o) => String(o) === e.target.value) ?? null)}
        block
        data-testid={testId}
        validationStatus={message ? 'error' : undefined}
      >
        {nullable && <Select.Option value="">{t('profile.none')}</Select.Option>}
        {options.map((option) => (
          <Select.Option key={String(option)} value={String(option)}>
            {optionLabel(option)}
          </Select.Option>
        ))}
      </Select>
      {message && <FormControl.Validation variant="error">{message}</FormControl.Validation>}
    </FormControl>
  );
}

type Country = (typeof COUNTRIES)[number];
type Lang = (typeof LANGUAGES)[number];

export function CountryField({ label, value, onChange, error }: { label: string; value: Country | null | undefined; onChange: (v: Country | null) => void; error?: string }) {
  const { t } = useTranslation();
  return <ChoiceField label={label} value={value} options={COUNTRIES} optionLabel={(c) => t(`profile.countries.${c}`)} onChange={onChange} error={error} />;
}

export function LanguageField({ label, value, onChange, error }: { label: string; value: Lang | null | undefined; onChange: (v: Lang | null) => void; error?: string }) {
  const { t } = useTranslation();
  return <ChoiceField label={label} value={value} options={LANGUAGES} optionLabel={(l) => t(`languages.${l}`)} onChange={onChange} error={error} />;
}
