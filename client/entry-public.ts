import { isLanguage } from '../shared/languages.ts';
import { persistLanguage, storedLanguage } from './language-preference.ts';
import type { PublicBoot } from './public-pages/boot.ts';
import { PUBLIC_BOOT_ID } from '../shared/ssr-contract.ts';
import { forgetAfterSessionEnded } from './offline-storage.ts';
import { enhanceForms } from './public-pages/enhance-forms.ts';
import { mountGoogleSignIn } from './public-pages/google-sign-in.ts';
import { mountPasskeySignIn } from './public-pages/passkey-sign-in.ts';
import './public-pages/public.css';

/**
 * The public pages' script (ADR 024). The pages are complete without it: forms post to the server,
 * which answers with a redirect or the page again. This adds what JavaScript does better: the §5
 * messages before a round trip, posting without leaving the page, the language switch, Google and passkey sign-in.
 * No React: the whole of it is a few kilobytes.
 */
function readBoot(): { boot: PublicBoot; nonce: string } {
  const element = document.getElementById(PUBLIC_BOOT_ID) as HTMLScriptElement | null;
  const boot = JSON.parse(element?.textContent || '{}') as PublicBoot;
  return {
    boot: { lang: isLanguage(boot.lang) ? boot.lang : 'en', messages: boot.messages ?? {}, googleClientId: boot.googleClientId ?? null },
    nonce: element?.nonce || element?.getAttribute('nonce') || '',
  };
}

/** The page was rendered in the cookie's language; local storage (§9) wins when they differ. */
function followStoredLanguage(lang: PublicBoot['lang']): boolean {
  const stored = storedLanguage();
  if (!stored) {
    persistLanguage(lang);
    return false;
  }
  if (stored === lang) return false;
  persistLanguage(stored);
  // Only reload when the cookie took the choice: otherwise the server would answer in the old language again.
  if (!document.cookie.split('; ').includes(`lang=${stored}`)) return false;
  window.location.reload();
  return true;
}

function enhanceLanguageSwitch() {
  for (const select of document.querySelectorAll<HTMLSelectElement>('select[data-language-switch]')) {
    select.addEventListener('change', () => {
      if (!isLanguage(select.value)) return;
      persistLanguage(select.value);
      window.location.reload();
    });
  }
}

function start() {
  // §2: any leftover service worker from an older app on this origin is unregistered.
  void navigator.serviceWorker?.getRegistrations().then((registrations) => registrations.forEach((r) => void r.unregister()));
  // Signed out, whichever way the session ended (expired, deactivated, signed out elsewhere): the day's copy
  // (customers' addresses and phone numbers) goes; the offline queue stays, without them, for the same user (ADR 067).
  void forgetAfterSessionEnded();
  const { boot, nonce } = readBoot();
  if (followStoredLanguage(boot.lang)) return;
  enhanceLanguageSwitch();
  enhanceForms(document, boot);
  mountGoogleSignIn(boot, nonce);
  mountPasskeySignIn(boot);
  // Tests and monitoring wait for this, as for `data-hydrated` on the app's pages.
  document.documentElement.dataset.enhanced = 'true';
}

start();
