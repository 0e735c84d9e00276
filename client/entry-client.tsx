import { hydrate as hydrateQueries, type DehydratedState } from '@tanstack/react-query';
import { startTransition } from 'react';
import { hydrateRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router-dom';
import { matchRoute } from '../shared/route-table.ts';
import { isLanguage } from '../shared/languages.ts';
import { App } from './app.tsx';
import { completeTranslations, contentLanguage, createI18n, loadLanguages } from './i18n.ts';
import { persistLanguage, storedLanguage } from './language-preference.ts';
import { createQueryClient } from './query-client.ts';
import { preloadRoute, routeTranslations } from './routes.tsx';
import { afterLoad, whenIdle } from './shell/idle.ts';
import { unpackRecords, type SsrState } from './ssr-state.ts';
import { STATE_ELEMENT_ID } from '../shared/ssr-contract.ts';
import { createTrpcClient } from './trpc.ts';
// Primer's light colour tokens (vite.config.ts trims them to light mode), then the app's own styles.
import 'virtual:primer-light-theme.css';
import './styles.css';
// The list screen's styles come with the app's one style sheet: most pages are lists, and a style sheet of
// its own would be one more request before the first paint.
import './entity/resource-list.css';

async function start() {
  const element = document.getElementById(STATE_ELEMENT_ID);
  const state = JSON.parse(element?.textContent ?? '{}') as SsrState;
  const nonce = element?.getAttribute('nonce') || (element as HTMLScriptElement | null)?.nonce || null;

  // The server rendered the language of the `lang` cookie. The cookie and local storage (§9 key `lang`)
  // are written together, except when the server sets the cookie at sign-in to the profile's language
  // (ADR 023): then the cookie wins. Without a cookie (cleared, expired) local storage wins.
  const stored = storedLanguage();
  const lang = isLanguage(state.lang) ? state.lang : 'en';
  const cookie = /(?:^|;\s*)lang=([^;]*)/.exec(document.cookie)?.[1];
  const switchTo = stored && stored !== lang && !isLanguage(cookie) ? stored : null;
  persistLanguage(switchTo ?? lang);

  const queryClient = createQueryClient(() => {
    queryClient.clear();
    // The session ended other than by a sign-out: the day's copy goes, the queue stays for the same user (ADR 067).
    void import('./offline-storage.ts').then((storage) => storage.forgetAfterSessionEnded()).finally(() => window.location.assign('/'));
  });
  if (state.dehydrated) hydrateQueries(queryClient, unpackRecords(state.dehydrated) as DehydratedState);

  // Load the current page's code before hydrating so the server's HTML is adopted, not replaced.
  const match = matchRoute(window.location.pathname);
  const [resources] = await Promise.all([loadLanguages(routeTranslations(match?.route.path), lang, contentLanguage(match?.params)), preloadRoute(match?.route.path)]);

  const i18n = createI18n(lang, resources);
  // As a transition, hydration works in slices that let the browser in between (input, paint) rather
  // than one long task: the page is already on screen, complete, from the server (ADR 024).
  startTransition(() => {
    hydrateRoot(
      document.getElementById('root')!,
      <App
        queryClient={queryClient}
        trpcClient={createTrpcClient()}
        i18n={i18n}
        config={{ ...state.config, nonce }}
        router={(children) => <BrowserRouter>{children}</BrowserRouter>}
      />,
    );
  });
  if (switchTo) void i18n.changeLanguage(switchTo);
  // The texts a list page left out, for the screens the user opens next (ADR 024); they wait for it anyway. The
  // texts of screens that load all theirs first (`later`) come when one opens (ADR 077).
  whenIdle(() => void completeTranslations(['more', 'resources']).catch(() => undefined));
  // Live updates (ADR 037) on signed-in pages: changes others make mark the answers on screen stale.
  if (match?.route.roles) afterLoad(() => void import('./shell/live-updates.ts').then((live) => live.startLiveUpdates(queryClient)));
  // §2: any leftover service worker is unregistered, all but ours, which signed-in pages register (ADR 042),
  // once the page has loaded: the worker's install fetches the page's assets again (ADR 048).
  afterLoad(() => void import('./shell/offline-worker.ts').then((worker) => worker.startOfflineWorker(queryClient, Boolean(match?.route.roles))));
}

void start();
