import type { TFunction } from 'i18next';
import { safeRedirectPath } from '../../shared/route-table.ts';
import { errorText } from '../errors.ts';
import type { PublicFormResult } from '../../shared/ssr-contract.ts';
import { AuthLayout, Field, Flash, SubmitButton } from './public-layout.tsx';
import type { PublicPageProps } from './public-page.ts';

/**
 * Sign-in and the password flows. Each form posts to the server, which answers with a redirect or with
 * this page again showing the outcome (server/public-forms.ts); the page script validates first and
 * posts in the background when it can (entry-public.ts). Nothing here runs in the browser.
 */

function failureText(t: TFunction, form: PublicFormResult | undefined): string | null {
  return form?.error ? errorText(t, { message: form.error.message, data: { appCode: form.error.appCode } }) : null;
}

/** Shown by the page's script where the browser has passkeys (passkey-sign-in.ts, ADR 075): it needs JavaScript. */
function PasskeyButton({ t }: { t: TFunction }) {
  return (
    <div data-passkey="" hidden>
      <p className="or">{t('auth.or')}</p>
      <button type="button" className="btn" data-testid="passkey-signin">
        {t('auth.signInWithPasskey')}
      </button>
    </div>
  );
}

export function LoginPage({ t, lang, search, googleClientId, form }: PublicPageProps) {
  const redirect = safeRedirectPath(search.get('redirect'));
  // Without JavaScript a failed sign-in comes back as /login?error=<code> (POST /login redirects).
  const code = search.get('error');
  const failure = failureText(t, form) ?? (code ? errorText(t, { data: { appCode: code } }) : null);
  return (
    <AuthLayout t={t} lang={lang} title={t('auth.signInTitle')}>
      {failure && (
        <Flash variant="danger" testId="login-error">
          {failure}
        </Flash>
      )}
      <form className="form" method="post" action="/login" data-form="login" data-testid="login-form">
        <input type="hidden" name="redirect" defaultValue={redirect} />
        <Field t={t} name="email" type="email" label={t('auth.email')} autoComplete="username" form={form} />
        <Field t={t} name="password" type="password" label={t('auth.password')} autoComplete="current-password" form={form} />
        <SubmitButton testId="login-submit">{t('auth.signIn')}</SubmitButton>
      </form>
      <PasskeyButton t={t} />
      {googleClientId && (
        <div>
          <p className="or">{t('auth.or')}</p>
          <div data-google-signin="" aria-label={t('auth.signInWithGoogle')} data-testid="google-signin" />
        </div>
      )}
      <a href="/forgot-password">{t('auth.forgotPasswordLink')}</a>
    </AuthLayout>
  );
}

/**
 * The second step of a sign-in (ADR 068): a code of the authenticator app, or one of the recovery codes. The
 * challenge of the password step waits in an HttpOnly cookie; this form posts only the code.
 */
export function SecondFactorPage({ t, lang, search, form }: PublicPageProps) {
  const redirect = safeRedirectPath(search.get('redirect'));
  const code = search.get('error');
  const failure = failureText(t, form) ?? (code ? errorText(t, { data: { appCode: code } }) : null);
  return (
    <AuthLayout t={t} lang={lang} title={t('auth.secondFactorTitle')}>
      <p>{t('auth.secondFactorHelp')}</p>
      {failure && (
        <Flash variant="danger" testId="second-factor-error">
          {failure}
        </Flash>
      )}
      <form className="form" method="post" action="/login/second-factor" data-form="second-factor" data-testid="second-factor-form">
        <input type="hidden" name="redirect" defaultValue={redirect} />
        <Field t={t} name="code" type="text" label={t('auth.secondFactorCode')} autoComplete="one-time-code" form={form} />
        <SubmitButton testId="second-factor-submit">{t('auth.secondFactorSubmit')}</SubmitButton>
      </form>
      <p className="hint">{t('auth.secondFactorRecoveryHint')}</p>
      {/* A user whose factor is a passkey has no code to type: the passkey signs in on its own (ADR 075). */}
      <PasskeyButton t={t} />
      <a href="/login">{t('auth.backToLogin')}</a>
    </AuthLayout>
  );
}

export function ForgotPasswordPage({ t, lang, form }: PublicPageProps) {
  const failure = failureText(t, form);
  return (
    <AuthLayout t={t} lang={lang} title={t('auth.forgotTitle')}>
      {form?.done ? (
        <Flash variant="success" testId="forgot-done">
          {t('auth.resetLinkSent')}
        </Flash>
      ) : (
        <>
          <p>{t('auth.forgotHelp')}</p>
          {failure && <Flash variant="danger">{failure}</Flash>}
          <form className="form" method="post" action="/forgot-password" data-form="forgot-password">
            <Field t={t} name="email" type="email" label={t('auth.email')} autoComplete="email" form={form} />
            <SubmitButton>{t('auth.sendResetLink')}</SubmitButton>
          </form>
        </>
      )}
      <a href="/login">{t('auth.backToLogin')}</a>
    </AuthLayout>
  );
}

interface NewPasswordTexts {
  title: string;
  help?: string;
  submit: string;
  done: string;
}

/** Reset password and accept invitation: the same two fields and rules (§5), different endpoints. */
function NewPasswordPage({ t, lang, path, params, form, texts }: PublicPageProps & { texts: NewPasswordTexts }) {
  const failure = failureText(t, form);
  return (
    <AuthLayout t={t} lang={lang} title={t(texts.title)}>
      {form?.done ? (
        <Flash variant="success" testId="password-done">
          {t(texts.done)}
        </Flash>
      ) : (
        <>
          {texts.help && <p>{t(texts.help)}</p>}
          {failure && (
            <Flash variant="danger" testId="password-error">
              {failure}
            </Flash>
          )}
          <form className="form" method="post" action={path} data-form="new-password">
            {/* The token is the URL's; here too so the page script checks the same input the server does. */}
            <input type="hidden" name="token" defaultValue={params.token} />
            <Field t={t} name="password" type="password" label={t('auth.newPassword')} autoComplete="new-password" form={form} />
            <Field t={t} name="password_confirm" type="password" label={t('auth.passwordConfirm')} autoComplete="new-password" form={form} />
            <SubmitButton>{t(texts.submit)}</SubmitButton>
          </form>
        </>
      )}
      <a href="/login">{t('auth.backToLogin')}</a>
    </AuthLayout>
  );
}

export const ResetPasswordPage = (props: PublicPageProps) => (
  <NewPasswordPage {...props} texts={{ title: 'auth.resetTitle', submit: 'auth.resetSubmit', done: 'auth.resetDone' }} />
);

export const AcceptInvitationPage = (props: PublicPageProps) => (
  <NewPasswordPage {...props} texts={{ title: 'auth.acceptTitle', help: 'auth.acceptHelp', submit: 'auth.acceptSubmit', done: 'auth.acceptDone' }} />
);

/** Confirmation is an explicit click, so mail scanners that prefetch links cannot confirm for the user. */
export function ConfirmEmailPage({ t, lang, path, params, form }: PublicPageProps) {
  const failure = failureText(t, form);
  return (
    <AuthLayout t={t} lang={lang} title={t('auth.confirmTitle')}>
      {form?.done ? (
        <Flash variant="success" testId="confirm-done">
          {t('auth.confirmDone')}
        </Flash>
      ) : (
        <>
          <p>{t('auth.confirmHelp', { email: params.email })}</p>
          {failure && <Flash variant="danger">{failure}</Flash>}
          <form className="form" method="post" action={path} data-form="confirm-email">
            <SubmitButton>{t('auth.confirmSubmit')}</SubmitButton>
          </form>
        </>
      )}
      <a href="/login">{t('auth.backToLogin')}</a>
    </AuthLayout>
  );
}

/** Signed in, but with no role of the back office: sign out (a plain form post) to try another account. */
export function ForbiddenPage({ t, lang }: PublicPageProps) {
  return (
    <AuthLayout t={t} lang={lang} title={t('forbidden.title')}>
      <Flash variant="warning" testId="forbidden-text">
        {t('forbidden.text')}
      </Flash>
      <form method="post" action="/logout">
        <button type="submit" className="btn">
          {t('forbidden.signInAnother')}
        </button>
      </form>
    </AuthLayout>
  );
}
