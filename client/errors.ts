import type { TFunction } from 'i18next';
import { CREDENTIAL_ERROR_CODES } from '../shared/errors.ts';

interface ErrorLike {
  message?: string;
  /** Set directly on errors thrown by server-side procedures (SSR prefetch), and so on their dehydrated copies. */
  appCode?: string;
  data?: { appCode?: string | null; fieldErrors?: Record<string, string> | null; code?: string; httpStatus?: number } | null;
}

export function appCodeOf(error: unknown): string | null {
  const e = error as ErrorLike | null;
  return e?.data?.appCode ?? e?.appCode ?? null;
}

export function fieldErrorsOf(error: unknown): Record<string, string> {
  return (error as ErrorLike | null)?.data?.fieldErrors ?? {};
}

/** §8 display rules on the client: translate known codes, keep credential errors vague. */
export function errorText(t: TFunction, error: unknown): string {
  const e = error as ErrorLike | null;
  const code = appCodeOf(error);
  if (code && CREDENTIAL_ERROR_CODES.includes(code)) return t('errors.invalidCredentials');
  if (code && code !== 'upstream_error') {
    const key = `errors.${code}`;
    const text = t(key, { defaultValue: '' });
    if (text) return text;
  }
  if (e?.data?.code === 'INTERNAL_SERVER_ERROR' || !e?.message) return t('errors.generic');
  if (/^(fetch failed|failed to fetch|networkerror|load failed)/i.test(e.message)) return t('errors.upstream_unreachable');
  return e.message;
}

/**
 * Field messages are i18n keys from shared schemas (`validation.required`, or `validation.min:1`
 * with a parameter), or upstream text passed through as it is.
 */
export function fieldText(t: TFunction, message: string | undefined): string | undefined {
  if (!message) return undefined;
  const key = /^(validation|errors)\.([A-Za-z_.]+)(?::(-?[\d.]+))?$/.exec(message);
  if (key) return t(`${key[1]}.${key[2]}`, { value: key[3] });
  return message;
}
