import { Button, Flash, Link as PrimerLink, Text } from '@primer/react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { forgotPasswordInput } from '../../shared/schemas/auth.ts';
import { AuthLayout, FormStack } from '../components/auth-layout.tsx';
import { TextField } from '../components/text-field.tsx';
import { useZodForm } from '../components/use-zod-form.ts';
import { errorText } from '../errors.ts';
import { trpc } from '../trpc.ts';

export default function ForgotPasswordPage() {
  const { t } = useTranslation();
  const form = useZodForm(forgotPasswordInput, { email: '' });
  const mutation = trpc.auth.forgotPassword.useMutation();
  const [error, setError] = useState<string | null>(null);

  const onSubmit = async (event: React.FormEvent) => {
    event.preventDefault();
    setError(null);
    const input = form.validate(event.currentTarget as HTMLFormElement);
    if (!input) return;
    try {
      await mutation.mutateAsync(input);
    } catch (e) {
      form.applyServerError(e);
      setError(errorText(t, e));
    }
  };

  return (
    <AuthLayout title={t('auth.forgotTitle')}>
      {mutation.isSuccess ? (
        <Flash variant="success" role="status" data-testid="forgot-done">
          {t('auth.resetLinkSent')}
        </Flash>
      ) : (
        <>
          <Text as="p" style={{ margin: 0 }}>
            {t('auth.forgotHelp')}
          </Text>
          {error && (
            <Flash variant="danger" role="alert">
              {error}
            </Flash>
          )}
          <FormStack onSubmit={onSubmit} noValidate>
            <TextField name="email" type="email" label={t('auth.email')} value={form.values.email} onChange={(v) => form.set('email', v)} error={form.errors.email} autoComplete="email" required />
            <Button type="submit" variant="primary" block loading={mutation.isPending}>
              {t('auth.sendResetLink')}
            </Button>
          </FormStack>
        </>
      )}
      <PrimerLink as={Link} to="/login">
        {t('auth.backToLogin')}
      </PrimerLink>
    </AuthLayout>
  );
}
