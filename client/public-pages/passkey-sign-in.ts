import { browserSupportsWebAuthn, startAuthentication, type PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/browser';
import { CSRF_HEADER } from '../../shared/http-headers.ts';
import type { PublicBoot } from './boot.ts';
import { showError, signInThrough } from './google-sign-in.ts';

/**
 * "Sign in with a passkey" on /login (ADR 075). The server renders the button hidden: it needs JavaScript
 * and WebAuthn, so it shows only where both are. The API's options (a sealed challenge, any passkey of this
 * site, user verification required) go to the browser, its signed answer to `auth.passkey`; the API checks it.
 */
export function mountPasskeySignIn(boot: PublicBoot) {
  const box = document.querySelector<HTMLElement>('[data-passkey]');
  const button = box?.querySelector<HTMLButtonElement>('button');
  if (!box || !button || !browserSupportsWebAuthn()) return;
  box.hidden = false;
  let busy = false;
  button.addEventListener('click', () => {
    if (busy) return;
    busy = true;
    button.setAttribute('aria-disabled', 'true');
    void signInWithPasskey(boot).finally(() => {
      busy = false;
      button.removeAttribute('aria-disabled');
    });
  });
}

async function signInWithPasskey(boot: PublicBoot) {
  let optionsJSON: PublicKeyCredentialRequestOptionsJSON;
  try {
    const response = await fetch('/trpc/auth.passkeyOptions', { method: 'POST', headers: { 'content-type': 'application/json', [CSRF_HEADER]: '1' }, body: '{}' });
    const body = (await response.json()) as { result?: { data?: PublicKeyCredentialRequestOptionsJSON } };
    if (!response.ok || !body.result?.data) return showError(boot.messages['errors.generic'] ?? '');
    optionsJSON = body.result.data;
  } catch {
    return showError(boot.messages['errors.upstream_unreachable'] ?? '');
  }
  let answer;
  try {
    answer = await startAuthentication({ optionsJSON });
  } catch {
    // Canceled, timed out, or no passkey of this site on the device.
    return showError(boot.messages['auth.passkeyFailed'] ?? '');
  }
  await signInThrough('auth.passkey', { response: answer }, boot);
}
