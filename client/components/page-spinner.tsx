import { Spinner } from './controls.tsx';
import { useTranslation } from 'react-i18next';

/** The loading placeholder shown while a route's code or data arrives (spec §2). */
export function PageSpinner() {
  const { t } = useTranslation();
  return (
    <div role="status" aria-live="polite" style={{ display: 'flex', alignItems: 'center', gap: 8, padding: 24 }}>
      <Spinner size="small" srText={null} />
      <span>{t('app.loading')}</span>
    </div>
  );
}
