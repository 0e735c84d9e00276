import { Button, Flash, Link as PrimerLink } from '@primer/react';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useSearchParams } from 'react-router-dom';
import { loginInput } from '../../shared/schemas/auth.ts';
import { safeRedirectPath } from '../../shared/route-table.ts';
import { AuthLayout, FormStack } from '../components/auth-layout.tsx';
import { TextField } from '../components/text-field.tsx';
import { useZodForm } from '../components/use-zod-form.ts';
import { errorText } from '../errors.ts';
import { usePublicConfig } from '../public-config.tsx';
import { useReloadSession } from '../session.ts';
import { trpc } from '../trpc.ts';
import { persistLanguage } from '../shell/language-switch.tsx';
import type { Language } from '../../shared/schemas/common.ts';

/** The profile's language, applied at sign-in (ADR 023): the server has set the cookie; this browser follows. */
async function applyProfileLanguage(i18n: { language: string; changeLanguage(lang: string): Promise<unknown> }, language: Language | null) {
  if (!language) return;
  persistLanguage(language);
  if (i18n.language !== language) await i18n.changeLanguage(language);
}

/**
 * Works before JavaScript: the form posts to /login, which the server handles and answers with
 * a redirect. Once hydrated, submit goes through tRPC and errors appear without a reload.
 */
export default function LoginPage() {
  const { t, i18n } = useTranslation();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const reloadSession = useReloadSession();
  const redirect = safeRedirectPath(params.get('redirect'));
  const form = useZodForm(loginInput, { email: params.get('email') ?? '', password: '' });
  const [serverError, setServerError] = useState<string | null>(() => {
    const code = params.get('error');
    return code ? errorText(t, { data: { appCode: code } }) : null;
  });
  const login = trpc.auth.login.useMutation();

  const onSubmit = async (event: React.FormEvent) => {
    event.preventDefault();
    setServerError(null);
    const input = form.validate(event.currentTarget as HTMLFormElement);
    if (!input) return;
    try {
      const result = await login.mutateAsync(input);
      await applyProfileLanguage(i18n, result.language);
      await reloadSession();
      navigate(result.roles.length > 0 ? redirect : '/forbidden', { replace: true });
    } catch (error) {
      form.applyServerError(error);
      setServerError(errorText(t, error));
    }
  };

  return (
    <AuthLayout title={t('auth.signInTitle')}>
      {serverError && (
        <Flash variant="danger" role="alert" data-testid="login-error">
          {serverError}
        </Flash>
      )}
      <FormStack method="post" action="/login" onSubmit={onSubmit} noValidate data-testid="login-form">
        <input type="hidden" name="redirect" value={redirect} />
        <TextField name="email" type="email" label={t('auth.email')} value={form.values.email} onChange={(v) => form.set('email', v)} error={form.errors.email} autoComplete="username" required />
        <TextField
          name="password"
          type="password"
          label={t('auth.password')}
          value={form.values.password}
          onChange={(v) => form.set('password', v)}
          error={form.errors.password}
          autoComplete="current-password"
          required
        />
        <Button type="submit" variant="primary" block loading={login.isPending} data-testid="login-submit">
          {t('auth.signIn')}
        </Button>
      </FormStack>
      <GoogleSignIn redirect={redirect} onError={setServerError} />
      <PrimerLink as={Link} to="/forgot-password">
        {t('auth.forgotPasswordLink')}
      </PrimerLink>
    </AuthLayout>
  );
}

declare global {
  interface Window {
    google?: {
      accounts: {
        id: {
          initialize(options: { client_id: string; callback: (response: { credential?: string }) => void }): void;
          renderButton(element: HTMLElement, options: Record<string, unknown>): void;
        };
      };
    };
  }
}

/** Shown only when GOOGLE_CLIENT_ID is configured; the ID token is verified by the upstream. */
function GoogleSignIn({ redirect, onError }: { redirect: string; onError: (message: string) => void }) {
  const { t, i18n } = useTranslation();
  const { googleClientId, nonce } = usePublicConfig();
  const target = useRef<HTMLDivElement>(null);
  const navigate = useNavigate();
  const reloadSession = useReloadSession();
  const google = trpc.auth.google.useMutation();

  useEffect(() => {
    if (!googleClientId || !target.current) return;
    const element = target.current;
    const init = () => {
      window.google?.accounts.id.initialize({
        client_id: googleClientId,
        callback: (response) => {
          if (!response.credential) return;
          google
            .mutateAsync({ idToken: response.credential })
            .then(async (result) => {
              await applyProfileLanguage(i18n, result.language);
              await reloadSession();
              navigate(result.roles.length > 0 ? redirect : '/forbidden', { replace: true });
            })
            .catch((error: unknown) => onError(errorText(t, error)));
        },
      });
      window.google?.accounts.id.renderButton(element, { theme: 'outline', size: 'large', locale: i18n.language, width: 350 });
    };
    if (window.google) return init();
    const script = document.createElement('script');
    script.src = 'https://accounts.google.com/gsi/client';
    script.async = true;
    if (nonce) script.nonce = nonce;
    script.onload = init;
    document.head.appendChild(script);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [googleClientId]);

  if (!googleClientId) return null;
  return (
    <div>
      <p style={{ textAlign: 'center', margin: '0 0 8px', color: 'var(--fgColor-muted)' }}>{t('auth.or')}</p>
      <div ref={target} aria-label={t('auth.signInWithGoogle')} data-testid="google-signin" />
    </div>
  );
}
