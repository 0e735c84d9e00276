import { Button, Flash, Link as PrimerLink, Text } from '@primer/react';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router-dom';
import { AuthLayout } from '../components/auth-layout.tsx';
import { errorText } from '../errors.ts';
import { trpc } from '../trpc.ts';

/** Confirmation is an explicit click, so mail scanners that prefetch links cannot confirm for the user. */
export default function ConfirmEmailPage() {
  const { t } = useTranslation();
  const { token = '', email = '' } = useParams();
  const mutation = trpc.auth.confirmEmail.useMutation();
  return (
    <AuthLayout title={t('auth.confirmTitle')}>
      {mutation.isSuccess ? (
        <Flash variant="success" role="status" data-testid="confirm-done">
          {t('auth.confirmDone')}
        </Flash>
      ) : (
        <>
          <Text as="p" style={{ margin: 0 }}>
            {t('auth.confirmHelp', { email })}
          </Text>
          {mutation.error && (
            <Flash variant="danger" role="alert">
              {errorText(t, mutation.error)}
            </Flash>
          )}
          <Button variant="primary" block loading={mutation.isPending} onClick={() => mutation.mutate({ token, email })}>
            {t('auth.confirmSubmit')}
          </Button>
        </>
      )}
      <PrimerLink as={Link} to="/login">
        {t('auth.backToLogin')}
      </PrimerLink>
    </AuthLayout>
  );
}
