import type { TFunction } from 'i18next';
import type { ReactNode } from 'react';
import { LANGUAGES, type Language } from '../../shared/languages.ts';
import { fieldText } from '../errors.ts';
import type { PublicFormResult } from '../../shared/ssr-contract.ts';

/**
 * The building blocks of the public pages: plain markup and the classes of public.css, rendered on the
 * server only (ADR 024). The page script (entry-public.ts) finds its way by the data-* attributes here
 * and writes field messages in the same markup as `Field`.
 */

/** The language select; the page script stores the choice and reloads in it. */
export function LanguageSwitch({ t, lang }: { t: TFunction; lang: Language }) {
  return (
    <label className="lang-switch">
      <span className="visually-hidden">{t('shell.language')}</span>
      <select aria-label={t('shell.language')} data-testid="language-switch" data-language-switch="" defaultValue={lang}>
        {LANGUAGES.map((l) => (
          <option key={l} value={l}>
            {t(`languages.${l}`)}
          </option>
        ))}
      </select>
    </label>
  );
}

export function AuthLayout({ t, lang, title, children }: { t: TFunction; lang: Language; title: string; children: ReactNode }) {
  return (
    <div className="auth">
      <div className="auth-top">
        <span>{t('app.name')}</span>
        <LanguageSwitch t={t} lang={lang} />
      </div>
      <main className="auth-card" data-public-main="">
        <h1>{title}</h1>
        {children}
      </main>
      <small className="auth-tagline">{t('app.tagline')}</small>
    </div>
  );
}

export function StaticLayout({ t, lang, title, textLang, children }: { t: TFunction; lang: Language; title: string; textLang?: Language; children: ReactNode }) {
  return (
    <main className="static" lang={textLang} data-public-main="">
      <div className="static-head">
        <h1>{title}</h1>
        <LanguageSwitch t={t} lang={lang} />
      </div>
      <div className="static-body">{children}</div>
    </main>
  );
}

export function Flash({ variant, testId, children }: { variant: 'danger' | 'success' | 'warning'; testId?: string; children: ReactNode }) {
  // Messages about what just happened are announced; a standing notice is not.
  const role = variant === 'danger' ? 'alert' : variant === 'success' ? 'status' : undefined;
  return (
    <div className={`flash flash-${variant}`} role={role} tabIndex={role ? -1 : undefined} data-testid={testId}>
      {children}
    </div>
  );
}

interface FieldProps {
  t: TFunction;
  name: string;
  label: string;
  type: 'email' | 'password' | 'text';
  autoComplete: string;
  form?: PublicFormResult;
}

/** A required text input with its label and, after a failed submit, its message. */
export function Field({ t, name, label, type, autoComplete, form }: FieldProps) {
  const id = `field-${name}`;
  const message = fieldText(t, form?.fields?.[name]);
  return (
    <div className="field">
      <label htmlFor={id}>
        {label}
        <span aria-hidden="true"> *</span>
      </label>
      <input
        id={id}
        className="input"
        name={name}
        type={type}
        autoComplete={autoComplete}
        required
        defaultValue={type === 'password' ? undefined : form?.values?.[name]}
        aria-invalid={message ? true : undefined}
        aria-describedby={message ? `${id}-error` : undefined}
      />
      {message && (
        <span className="field-error" id={`${id}-error`}>
          {message}
        </span>
      )}
    </div>
  );
}

export function SubmitButton({ testId, children }: { testId?: string; children: ReactNode }) {
  return (
    <button type="submit" className="btn btn-primary" data-testid={testId}>
      {children}
    </button>
  );
}
