import { Link as PrimerLink } from '@primer/react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { StaticPage } from '../components/static-page.tsx';

export default function NotFoundPage() {
  const { t } = useTranslation();
  return (
    <StaticPage title={t('routes.notFound')}>
      <p>{t('notFound.text')}</p>
      <PrimerLink as={Link} to="/">
        {t('notFound.goHome')}
      </PrimerLink>
    </StaticPage>
  );
}
