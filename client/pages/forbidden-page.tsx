import { Button, Flash } from '@primer/react';
import { useTranslation } from 'react-i18next';
import { AuthLayout } from '../components/auth-layout.tsx';
import { trpc } from '../trpc.ts';

export default function ForbiddenPage() {
  const { t } = useTranslation();
  const logout = trpc.auth.logout.useMutation({ onSettled: () => window.location.assign('/login') });
  return (
    <AuthLayout title={t('forbidden.title')}>
      <Flash variant="warning" data-testid="forbidden-text">
        {t('forbidden.text')}
      </Flash>
      <Button onClick={() => logout.mutate()} loading={logout.isPending}>
        {t('forbidden.signInAnother')}
      </Button>
    </AuthLayout>
  );
}
