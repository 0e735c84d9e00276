import type { DehydratedState, QueryClient } from '@tanstack/react-query';
import type { MapConfig } from './geo.ts';
import type { Language } from './languages.ts';

/**
 * The contract between the server and the React render entry (client/entry-server.tsx, ADR 005, 024, 027).
 * The server loads the entry by path (a built file, or Vite's module in development) and calls it through
 * this contract only; the entry's `ssrEntry` is typed by it. Living here, neither side imports the other
 * (ADR 030).
 */

/** The element holding the app's state in the page (`SsrState`, client/ssr-state.ts). */
export const STATE_ELEMENT_ID = '__BO_STATE__';
/** The element holding what the public pages' script needs from the server (`PublicBoot`, ADR 024). */
export const PUBLIC_BOOT_ID = '__BO_PUBLIC__';
/** The element with an offline route's on-demand chunks (a JSON array of URLs) for the service worker (ADR 048). */
export const OFFLINE_ASSETS_ID = '__BO_OFFLINE__';
/** `workerData.role` of a render worker (server/ssr/render-pool.ts starts them; the entry answers them). */
export const RENDER_WORKER_ROLE = 'backoffice-ssr-render';

/** The configuration the browser may see (never secrets), as the server hands it to a render. */
export interface SsrConfig {
  googleClientId: string | null;
  version: string;
  map: MapConfig;
}

/**
 * The outcome of a public form posted to the server (ADR 024), rendered into the page that answers the
 * post: the server passes codes and keys, the page translates them with the rules of client/errors.ts.
 */
export interface PublicFormResult {
  /** The action succeeded: the page shows its confirmation instead of the form. */
  done?: boolean;
  /** Why it failed: the app or upstream error code, and the text that goes with it. */
  error?: { appCode: string | null; message: string };
  /** Field → message: an i18n key (`validation.email`) or the upstream's text. */
  fields?: Record<string, string>;
  /** What the user typed, shown again (never passwords). */
  values?: Record<string, string>;
}

/** One page to render. `Helpers` are tRPC's server-side helpers for the app's router (the server makes them). */
export interface RenderInput<Helpers> {
  url: string;
  lang: Language;
  nonce: string;
  helpers: Helpers;
  queryClient: QueryClient;
  config: SsrConfig;
  /** The outcome of a public form just posted to this page (server/public-forms.ts). */
  form?: PublicFormResult;
}

export interface RenderOutput {
  /** `public`: a page of the small public entry (ADR 024), with no app state; `app`: the SPA. */
  kind: 'app' | 'public';
  html: string;
  head: string;
  title: string;
  state: string;
  /** Source paths of what the browser loads before hydrating (layout, page, translations): the server links their chunks and CSS. */
  modules: string[];
  status: number;
  /** Time spent fetching the page's data, and rendering it to HTML once the data was there (wall clock, and CPU of this thread). */
  timings: { prefetchMs: number; renderMs: number; renderCpuMs: number };
}

/** What `prefetch` leaves for the render of an app page: its data, ready to go to another thread. */
export interface AppRenderJob {
  url: string;
  lang: Language;
  nonce: string;
  config: SsrConfig;
  dehydrated: DehydratedState;
  prefetchMs: number;
}

/** What the render entry offers the server (its `ssrEntry` export). */
export interface SsrEntry<Helpers> {
  /** Prefetch and render in this thread. */
  render(input: RenderInput<Helpers>): Promise<RenderOutput>;
  /** The part that talks to the API: a public page whole, an app page's data as a job for a render worker. */
  prefetch(input: RenderInput<Helpers>): Promise<{ kind: 'public'; output: RenderOutput } | { kind: 'app'; job: AppRenderJob }>;
  /** The query client of a server render (the server builds the tRPC helpers on it). */
  createSsrQueryClient(): QueryClient;
  /** A text of the server's translations, for answers sent without a render (ADR 029's 503 page). */
  translate(lang: Language, key: string): string;
}
