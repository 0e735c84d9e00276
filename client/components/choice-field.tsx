import { FormControl, Select } from '@primer/react';
import { useTranslation } from 'react-i18next';
import { LANGUAGES } from '../../shared/languages.ts';
import { COUNTRIES } from '../../shared/schemas/common.ts';

interface ChoiceFieldProps<V extends string | number> {
  label: string;
  value: V | null | undefined;
  options: readonly V[];
  optionLabel: (value: V) => string;
  onChange: (value: V | null) => void;
  /** Offers an empty choice ("Not set"). */
  nullable?: boolean;
  testId?: string;
}

/** A labelled select over a fixed list of values (country, language, user type…). */
export function ChoiceField<V extends string | number>({ label, value, options, optionLabel, onChange, nullable = true, testId }: ChoiceFieldProps<V>) {
  const { t } = useTranslation();
  return (
    <FormControl>
      <FormControl.Label>{label}</FormControl.Label>
      <Select
        value={value === null || value === undefined ? '' : String(value)}
        onChange={(e) => onChange(options.find((o) => String(o) === e.target.value) ?? null)}
        block
        data-testid={testId}
      >
        {nullable && <Select.Option value="">{t('profile.none')}</Select.Option>}
        {options.map((option) => (
          <Select.Option key={String(option)} value={String(option)}>
            {optionLabel(option)}
          </Select.Option>
        ))}
      </Select>
    </FormControl>
  );
}

type Country = (typeof COUNTRIES)[number];
type Lang = (typeof LANGUAGES)[number];

export function CountryField({ label, value, onChange }: { label: string; value: Country | null | undefined; onChange: (v: Country | null) => void }) {
  const { t } = useTranslation();
  return <ChoiceField label={label} value={value} options={COUNTRIES} optionLabel={(c) => t(`profile.countries.${c}`)} onChange={onChange} />;
}

export function LanguageField({ label, value, onChange }: { label: string; value: Lang | null | undefined; onChange: (v: Lang | null) => void }) {
  const { t } = useTranslation();
  return <ChoiceField label={label} value={value} options={LANGUAGES} optionLabel={(l) => t(`languages.${l}`)} onChange={onChange} />;
}
