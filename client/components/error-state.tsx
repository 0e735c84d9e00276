import { Button, Flash } from './controls.tsx';
import { useTranslation } from 'react-i18next';
import { errorText } from '../errors.ts';

/** What a page shows when its data could not be loaded: the reason and a way to try again. */
export function ErrorState({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const { t } = useTranslation();
  return (
    <Flash variant="danger" role="alert" data-testid="error-state" style={{ display: 'flex', alignItems: 'center', gap: 12, justifyContent: 'space-between' }}>
      <span>{errorText(t, error)}</span>
      {onRetry && (
        <Button size="small" onClick={onRetry}>
          {t('errors.retry')}
        </Button>
      )}
    </Flash>
  );
}
