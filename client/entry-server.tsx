import { dehydrate, hydrate, QueryClient, type DehydratedState } from '@tanstack/react-query';
import type { ReactElement } from 'react';
import { renderToPipeableStream, renderToString } from 'react-dom/server';
import type { ServerStyleSheet } from 'styled-components';
import { StaticRouter } from 'react-router-dom';
import { PassThrough } from 'node:stream';
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import type { Language } from '../shared/languages.ts';
import { matchRoute } from '../shared/route-table.ts';
import { App } from './app.tsx';
import { contentLanguage, languageModules } from './i18n.ts';
import { serverI18n } from './i18n-server.ts';
import { reusingStyleSheet } from './ssr-styles.ts';
import { preloadRoute, routeModules, routeTranslations } from './routes.tsx';
import { prefetchRoute, type PrefetchHelpers } from './route-data.ts';
import { packRecords, serializeState, type SsrState } from './ssr-state.ts';
import { PUBLIC_MESSAGE_KEYS, type PublicBoot } from './public-pages/boot.ts';
import { RENDER_WORKER_ROLE, type AppRenderJob, type RenderInput as SsrRenderInput, type RenderOutput, type SsrEntry } from '../shared/ssr-contract.ts';
import { NOT_FOUND_PAGE, PUBLIC_PAGES, renderPublicPage } from './public-pages/public-routes.tsx';
import { createTrpcClient } from './trpc.ts';

type RenderInput = SsrRenderInput<PrefetchHelpers>;

const RENDER_TIMEOUT_MS = 10_000;
/** How React's server output marks a Suspense boundary it could not finish, left for the browser to render. */
const CLIENT_RENDERED_BOUNDARY = '<!--$!-->';

/** Never called on the server (the data is prefetched; queries do not fetch during a render): one for every render. */
const SSR_TRPC_CLIENT = createTrpcClient('http://ssr.invalid');

/** Each query's hash is its key as a string: hydrate() computes it again when it is missing, so it is not sent twice. */
function withoutQueryHashes(state: DehydratedState): DehydratedState {
  return { ...state, queries: state.queries.map(({ queryHash: _hash, ...query }) => query as DehydratedState['queries'][number]) };
}

/** CPU time of this thread in µs (includes other requests' work interleaved with a render). */
function threadCpuMicros(): number {
  const usage = (process as { threadCpuUsage?: () => NodeJS.CpuUsage }).threadCpuUsage?.() ?? process.cpuUsage();
  return usage.user + usage.system;
}

/** The query client of a server render: one attempt per query, and what is still pending stays out of the page's state. */
function createSsrQueryClient(): QueryClient {
  // One attempt per query on the server: a failing API shows its error state at once; the browser
  // retries. Errors are dehydrated too, so the first paint says what went wrong; queries a render
  // only started (choice lists of filters) are not: the browser fetches them.
  return new QueryClient({
    defaultOptions: { queries: { retry: false, retryOnMount: false, staleTime: 30_000 }, dehydrate: { shouldDehydrateQuery: (query) => query.state.status !== 'pending' } },
  });
}

/**
 * The part of a page's work that talks to the API: a public page is rendered whole (it is cheap), an
 * app page's queries are fetched and handed back as a job for `renderApp` (here, or in a render worker:
 * server/ssr/render-pool.ts, ADR 027).
 */
async function prefetch(input: RenderInput): Promise<{ kind: 'public'; output: RenderOutput } | { kind: 'app'; job: AppRenderJob }> {
  const url = new URL(input.url, 'http://local.invalid');
  const match = matchRoute(url.pathname);
  if (!match || !match.route.roles) return { kind: 'public', output: await renderPublic(input, url, match) };
  const started = performance.now();
  // Prefetches never throw: a failed query renders its error state and is retried in the browser.
  await Promise.all([input.helpers.session.me.prefetch(), prefetchRoute(match.route.path, input.helpers, match.params, url.searchParams)]);
  return {
    kind: 'app',
    job: { url: input.url, lang: input.lang, nonce: input.nonce, config: input.config, dehydrated: dehydrate(input.queryClient), prefetchMs: performance.now() - started },
  };
}

async function render(input: RenderInput): Promise<RenderOutput> {
  const pre = await prefetch(input);
  if (pre.kind === 'public') return pre.output;
  return renderApp(pre.job, input.queryClient);
}

/** React on the server for an app page whose data is in `job` (and, in this thread, already in `queryClient`). */
async function renderApp(job: AppRenderJob, queryClient?: QueryClient): Promise<RenderOutput> {
  const url = new URL(job.url, 'http://local.invalid');
  const match = matchRoute(url.pathname)!;
  const i18n = serverI18n(job.lang);
  const client = queryClient ?? createSsrQueryClient();
  if (!queryClient) hydrate(client, job.dehydrated);
  await preloadRoute(match.route.path);

  const prefetched = performance.now();
  const cpuBefore = threadCpuMicros();
  let sheet = reusingStyleSheet();
  const app = (
    <App
      queryClient={client}
      trpcClient={SSR_TRPC_CLIENT}
      i18n={i18n}
      config={{ ...job.config, nonce: job.nonce }}
      router={(children) => <StaticRouter location={url.pathname + url.search}>{children}</StaticRouter>}
    />
  );

  let html = renderedWhole(sheet, app);
  if (html === null) {
    // What the attempt collected (a fallback's styles) is not the page's.
    sheet.seal();
    sheet = reusingStyleSheet();
    html = await renderStreamed(sheet, app, job.nonce);
  }

  const head = sheet.getStyleTags();
  sheet.seal();
  const state: SsrState = { lang: job.lang, config: job.config, dehydrated: packRecords(withoutQueryHashes(dehydrate(client))) as DehydratedState };
  const title = `${i18n.t(match.route.titleKey)} · ${i18n.t('app.name')}`;
  const serialized = serializeState(state);
  const timings = { prefetchMs: job.prefetchMs, renderMs: performance.now() - prefetched, renderCpuMs: (threadCpuMicros() - cpuBefore) / 1000 };
  return {
    kind: 'app',
    html,
    head,
    title,
    state: serialized,
    modules: [...routeModules(match.route.path), ...languageModules(routeTranslations(match.route.path), job.lang, contentLanguage(match.params))],
    status: 200,
    timings,
  };
}

/**
 * The page as one string, when nothing in it waits: React's string renderer builds it by concatenation, where the
 * stream encodes every chunk to bytes that are then decoded again. A render in which something suspended (a
 * route's lazy page the first time this thread shows it) or failed inside a boundary comes out as that
 * boundary's fallback, marked for the browser to render (`<!--$!-->`), or throws: then null, and the stream,
 * which waits, renders the page.
 */
function renderedWhole(sheet: ServerStyleSheet, app: ReactElement): string | null {
  try {
    const html = renderToString(sheet.collectStyles(app));
    return html.includes(CLIENT_RENDERED_BOUNDARY) ? null : html;
  } catch {
    return null;
  }
}

/** The page through React's stream, which waits for what suspends (bounded by RENDER_TIMEOUT_MS). */
function renderStreamed(sheet: ServerStyleSheet, app: ReactElement, nonce: string): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let failed: unknown = null;
    // Bounded: a render that cannot finish is aborted (and the timer released as soon as it does finish,
    // so finished renders are not kept alive by it).
    const timer = setTimeout(() => {
      stream.abort();
      reject(failed ?? new Error('render timed out'));
    }, RENDER_TIMEOUT_MS);
    const stream = renderToPipeableStream(sheet.collectStyles(app), {
      nonce,
      // The whole page is sent at once (onAllReady), so nothing gains from React outlining large Suspense
      // boundaries: without this, a page over 12.8 KB arrives as a spinner plus a hidden copy that an
      // inline script swaps in, so the first paint needed JavaScript and the HTML carried the page twice.
      progressiveChunkSize: Number.POSITIVE_INFINITY,
      onAllReady() {
        const sink = new PassThrough();
        const chunks: Buffer[] = [];
        sink.on('data', (chunk: Buffer) => chunks.push(chunk));
        sink.on('end', () => {
          clearTimeout(timer);
          resolve(Buffer.concat(chunks).toString('utf8'));
        });
        stream.pipe(sink);
      },
      onShellError(error) {
        clearTimeout(timer);
        reject(error);
      },
      onError(error) {
        failed = error;
      },
    });
  });
}

/** A text of the server's translations, for answers the server sends without a render (ADR 029's 503 page). */
function translate(lang: Language, key: string): string {
  return serverI18n(lang).t(key);
}

/** What the server calls (server/ssr/renderer.ts), typed by the contract both sides share. */
export const ssrEntry: SsrEntry<PrefetchHelpers> = { render, prefetch, createSsrQueryClient, translate };

/** Loaded as a render worker (server/ssr/render-pool.ts): renders the jobs the main thread posts. */
if (!isMainThread && (workerData as { role?: string } | null)?.role === RENDER_WORKER_ROLE && parentPort) {
  const port = parentPort;
  port.on('message', (message: { id: number; job: AppRenderJob }) => {
    renderApp(message.job).then(
      (output) => port.postMessage({ id: message.id, output }),
      (error: unknown) => port.postMessage({ id: message.id, error: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
    );
  });
  // Loaded and listening: the pool's render timeout counts from here (ADR 029).
  port.postMessage({ ready: true });
}

/** A page without roles (or an unknown address): static markup for the public entry, no app state. */
async function renderPublic(input: RenderInput, url: URL, match: ReturnType<typeof matchRoute>): Promise<RenderOutput> {
  const started = performance.now();
  const i18n = serverI18n(input.lang);
  const def = (match && PUBLIC_PAGES[match.route.path as keyof typeof PUBLIC_PAGES]) ?? NOT_FOUND_PAGE;
  const params = match?.params ?? {};
  const data = await def.load?.(input.helpers, params);
  const prefetched = performance.now();
  const cpuBefore = threadCpuMicros();
  const t = i18n.getFixedT(input.lang);
  const html = renderPublicPage(def, {
    t,
    tIn: (lang) => serverI18n(lang).getFixedT(lang),
    lang: input.lang,
    path: url.pathname,
    params,
    search: url.searchParams,
    googleClientId: input.config.googleClientId,
    form: input.form,
    data,
  });
  const boot: PublicBoot = {
    lang: input.lang,
    messages: Object.fromEntries(PUBLIC_MESSAGE_KEYS.map((key) => [key, t(key)])),
    googleClientId: input.config.googleClientId,
  };
  const title = `${t(match ? match.route.titleKey : 'routes.notFound')} · ${t('app.name')}`;
  const timings = { prefetchMs: prefetched - started, renderMs: performance.now() - prefetched, renderCpuMs: (threadCpuMicros() - cpuBefore) / 1000 };
  return { kind: 'public', html, head: '', title, state: serializeState(boot), modules: [], status: match ? 200 : 404, timings };
}
