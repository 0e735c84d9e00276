import { useTranslation } from 'react-i18next';
import { useParams } from 'react-router-dom';
import { isLanguage } from '../../shared/schemas/common.ts';
import { StaticPage } from '../components/static-page.tsx';

export function PrivacyPolicyPage() {
  const { t } = useTranslation();
  return (
    <StaticPage title={t('legal.privacyTitle')}>
      <p>{t('legal.privacyBody')}</p>
    </StaticPage>
  );
}

/** /terms-and-conditions/:lang shows the terms in the language of the link, whatever the UI language. */
export function TermsPage() {
  const { lang = 'en' } = useParams();
  const { i18n } = useTranslation();
  const textLang = isLanguage(lang) ? lang : 'en';
  const t = i18n.getFixedT(textLang);
  return (
    <StaticPage title={t('legal.termsTitle')} lang={textLang}>
      <p>{t('legal.termsBody')}</p>
    </StaticPage>
  );
}

export default PrivacyPolicyPage;
