import { CSRF_HEADER } from '../../shared/http-headers.ts';
import { CREDENTIAL_ERROR_CODES } from '../../shared/errors.ts';
import type { PublicBoot } from './boot.ts';

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

const GOOGLE_CLIENT_SCRIPT = 'https://accounts.google.com/gsi/client';

/** A failure above the form, in the markup of the server's (public-layout.tsx `Flash`). */
export function showError(text: string) {
  const main = document.querySelector('[data-public-main]');
  if (!main) return;
  let flash = main.querySelector<HTMLElement>('.flash-danger');
  if (!flash) {
    flash = document.createElement('div');
    flash.className = 'flash flash-danger';
    flash.setAttribute('role', 'alert');
    flash.tabIndex = -1;
    flash.dataset.testid = 'login-error';
    main.querySelector('h1')?.after(flash);
  }
  flash.textContent = text;
}

/**
 * A sign-in through a tRPC procedure of the back office from the page's script (Google, a passkey): the same
 * next step as the password form's (server/public-forms.ts `afterSignIn`, ADR 068), or the failure above the form.
 */
export async function signInThrough(procedure: string, input: unknown, boot: PublicBoot): Promise<void> {
  const redirect = document.querySelector<HTMLInputElement>('input[name="redirect"]')?.value || '/';
  try {
    const response = await fetch(`/trpc/${procedure}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [CSRF_HEADER]: '1' },
      body: JSON.stringify(input),
    });
    const body = (await response.json()) as {
      result?: { data?: { roles?: string[]; secondFactor?: boolean; enrol?: boolean } };
      error?: { data?: { appCode?: string | null } };
    };
    const data = body.result?.data;
    const roles = data?.roles;
    if (response.ok && roles) {
      if (data.secondFactor) window.location.assign(`/login/second-factor?${new URLSearchParams({ redirect }).toString()}`);
      else window.location.assign(roles.length === 0 ? '/forbidden' : data.enrol ? '/security' : redirect);
      return;
    }
    const code = body.error?.data?.appCode ?? '';
    const key = CREDENTIAL_ERROR_CODES.includes(code) ? 'errors.invalidCredentials' : boot.messages[`errors.${code}`] ? `errors.${code}` : 'errors.generic';
    showError(boot.messages[key] ?? '');
  } catch {
    showError(boot.messages['errors.upstream_unreachable'] ?? '');
  }
}

/** Shown only when GOOGLE_CLIENT_ID is configured (the server renders the placeholder then). */
export function mountGoogleSignIn(boot: PublicBoot, nonce: string) {
  const target = document.querySelector<HTMLElement>('[data-google-signin]');
  const clientId = boot.googleClientId;
  if (!target || !clientId) return;
  const render = () => {
    window.google?.accounts.id.initialize({
      client_id: clientId,
      callback: (response) => response.credential && void signInThrough('auth.google', { idToken: response.credential }, boot),
    });
    window.google?.accounts.id.renderButton(target, { theme: 'outline', size: 'large', locale: boot.lang, width: 350 });
  };
  if (window.google) return render();
  const script = document.createElement('script');
  script.src = GOOGLE_CLIENT_SCRIPT;
  script.async = true;
  script.nonce = nonce;
  script.onload = render;
  document.head.appendChild(script);
}
