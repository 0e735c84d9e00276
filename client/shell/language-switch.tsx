import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import styled from 'styled-components';
import { LANGUAGES, isLanguage } from '../../shared/languages.ts';
import { persistLanguage } from '../language-preference.ts';

const Select = styled.select`
  font: inherit;
  font-size: 13px;
  padding: 4px 6px;
  border-radius: 6px;
  border: 1px solid var(--borderColor-default, #d0d7de);
  background: var(--bgColor-default, #fff);
  color: var(--fgColor-default, #1f2328);
`;

export function LanguageSwitch() {
  const { t, i18n } = useTranslation();
  const queryClient = useQueryClient();
  return (
    <label style={{ display: 'inline-flex', alignItems: 'center', gap: 6, fontSize: 13 }}>
      <span className="visually-hidden">{t('shell.language')}</span>
      <Select
        aria-label={t('shell.language')}
        value={i18n.language}
        data-testid="language-switch"
        onChange={(event) => {
          const lang = event.target.value;
          if (!isLanguage(lang)) return;
          persistLanguage(lang);
          void i18n.changeLanguage(lang);
          // Some data is worded per language (plan names): fetch it again in the new one.
          void queryClient.invalidateQueries();
        }}
      >
        {LANGUAGES.map((lang) => (
          <option key={lang} value={lang}>
            {t(`languages.${lang}`)}
          </option>
        ))}
      </Select>
    </label>
  );
}
