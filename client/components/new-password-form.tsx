import { Button, Flash, Link as PrimerLink, Text } from '@primer/react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { resetPasswordInput } from '../../shared/schemas/auth.ts';
import { errorText } from '../errors.ts';
import { AuthLayout, FormStack } from './auth-layout.tsx';
import { TextField } from './text-field.tsx';
import { useZodForm } from './use-zod-form.ts';

interface Props {
  token: string;
  titleKey: string;
  helpKey?: string;
  submitKey: string;
  doneKey: string;
  submit: (input: { token: string; password: string; password_confirm: string }) => Promise<unknown>;
  pending: boolean;
}

/** Reset password and accept invitation: the same two fields and rules (§5), different endpoints. */
export function NewPasswordForm({ token, titleKey, helpKey, submitKey, doneKey, submit, pending }: Props) {
  const { t } = useTranslation();
  const form = useZodForm(resetPasswordInput, { token, password: '', password_confirm: '' });
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState(false);

  const onSubmit = async (event: React.FormEvent) => {
    event.preventDefault();
    setError(null);
    const input = form.validate(event.currentTarget as HTMLFormElement);
    if (!input) return;
    try {
      await submit(input);
      setDone(true);
    } catch (e) {
      form.applyServerError(e);
      setError(errorText(t, e));
    }
  };

  return (
    <AuthLayout title={t(titleKey)}>
      {done ? (
        <Flash variant="success" role="status" data-testid="password-done">
          {t(doneKey)}
        </Flash>
      ) : (
        <>
          {helpKey && (
            <Text as="p" style={{ margin: 0 }}>
              {t(helpKey)}
            </Text>
          )}
          {error && (
            <Flash variant="danger" role="alert" data-testid="password-error">
              {error}
            </Flash>
          )}
          <FormStack onSubmit={onSubmit} noValidate>
            <TextField name="password" type="password" label={t('auth.newPassword')} value={form.values.password} onChange={(v) => form.set('password', v)} error={form.errors.password} autoComplete="new-password" required />
            <TextField
              name="password_confirm"
              type="password"
              label={t('auth.passwordConfirm')}
              value={form.values.password_confirm}
              onChange={(v) => form.set('password_confirm', v)}
              error={form.errors.password_confirm}
              autoComplete="new-password"
              required
            />
            <Button type="submit" variant="primary" block loading={pending}>
              {t(submitKey)}
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
