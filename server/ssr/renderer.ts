import type { FastifyInstance } from 'fastify';
import { createServerSideHelpers } from '@trpc/react-query/server';
import { pathToFileURL } from 'node:url';
import {
  PUBLIC_BOOT_ID,
  STATE_ELEMENT_ID,
  type AppRenderJob,
  type PublicFormResult,
  type RenderInput,
  type RenderOutput,
  type SsrConfig,
  type SsrEntry,
} from '../../shared/ssr-contract.ts';
import type { Worker } from 'node:worker_threads';
import type { Language } from '../../shared/languages.ts';
import { createRenderPool } from './render-pool.ts';
import { RENDER_WORKER_SEMI_SPACE_MB } from '../node-flags.ts';
import type { Context } from '../trpc/context.ts';
import { appRouter } from '../trpc/router.ts';
import { loadClientAssets, loadPublicAssets, type ClientAssets } from './assets.ts';
import { renderDocument } from './document.ts';
import { matchRoute } from '../../shared/route-table.ts';

export type SsrMode =
  /**
   * `renderWorkers`: threads that render React (ADR 027); 0 renders in the main thread. `renderTimeoutMs`
   * and `workerHeapMb`: a stuck worker's deadline and each worker's old-generation heap (ADR 029).
   */
  | {
      kind: 'production';
      clientDir: string;
      entryServerPath: string;
      renderWorkers?: number;
      renderTimeoutMs?: number;
      workerHeapMb?: number;
      /** Each render worker's semi-space size in MB (ADR 053); unset: RENDER_WORKER_SEMI_SPACE_MB, 0: the process's. */
      workerSemiSpaceMb?: number;
      /** Tests only: the module the render workers load instead of entryServerPath (a renderer that loops). */
      testWorkerModule?: string;
    }
  | { kind: 'development'; root: string };

/** tRPC's server-side helpers for the app's router: what the render entry prefetches a page's data with. */
type Helpers = ReturnType<typeof createServerSideHelpers<typeof appRouter>>;
type EntryServer = SsrEntry<Helpers>;
/** The render entry's module (client/entry-server.tsx, built or through Vite). */
type EntryModule = { ssrEntry: EntryServer };

export interface SsrRenderer {
  render(input: {
    url: string;
    ctx: Context;
    nonce: string;
    config: SsrConfig;
    form?: PublicFormResult;
  }): Promise<{ status: number; body: string; timings: RenderOutput['timings'] }>;
  /** CSP is enforced on built pages; Vite's dev client injects inline scripts of its own. */
  enforceCsp: boolean;
  /** The page sent with a 503 when a render worker gave up (RenderUnavailableError, ADR 029): no script, no state. */
  unavailablePage(lang: Language): Promise<string>;
  /** A text of the app's translations (`errors.…`) in a language: answers outside pages (`/live`'s 429) say it too. */
  translate(lang: Language, key: string): Promise<string>;
  /** The render workers now serving (none when rendering in the main thread): the memory bench reads their heaps. */
  renderThreads(): readonly Worker[];
}

/** A stuck render worker is replaced after this long without an answer (ADR 029; `SSR_RENDER_TIMEOUT_MS`). */
export const DEFAULT_RENDER_TIMEOUT_MS = 15_000;

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const DEV_TEMPLATE = '<!doctype html><html><head></head><body><script type="module" src="/client/entry-client.tsx"></script></body></html>';

/** Where a mode's pages come from: the render entry, the page's scripts and styles, the render workers if any. */
interface RenderSource {
  loadEntry: () => Promise<EntryServer>;
  assetsFor: (url: string, modules: readonly string[]) => Promise<ClientAssets>;
  publicAssetsFor: (url: string) => Promise<ClientAssets>;
  renderInWorker: ((job: AppRenderJob) => Promise<RenderOutput>) | null;
  renderThreads: () => readonly Worker[];
}

/** The built app: its server entry, the assets from the build's manifests, and the render workers (ADR 027). */
async function productionSource(app: FastifyInstance, mode: Extract<SsrMode, { kind: 'production' }>): Promise<RenderSource> {
  let renderInWorker: RenderSource['renderInWorker'] = null;
  let renderThreads: RenderSource['renderThreads'] = () => [];
  const assets = loadClientAssets(mode.clientDir);
  const entry = ((await import(pathToFileURL(mode.entryServerPath).href)) as EntryModule).ssrEntry;
  const loadEntry = async () => entry;
  const assetsFor = async (url: string, modules: readonly string[]) => assets(modules, Boolean(matchRoute(new URL(url, 'http://x').pathname)?.route.offline));
  const publicAssets = loadPublicAssets(mode.clientDir);
  const publicAssetsFor = async () => publicAssets;
  if ((mode.renderWorkers ?? 0) > 0) {
    const pool = createRenderPool(mode.testWorkerModule ?? mode.entryServerPath, mode.renderWorkers!, app.log, {
      timeoutMs: mode.renderTimeoutMs ?? DEFAULT_RENDER_TIMEOUT_MS,
      semiSpaceMb: mode.workerSemiSpaceMb ?? RENDER_WORKER_SEMI_SPACE_MB,
      ...(mode.workerHeapMb ? { resourceLimits: { maxOldGenerationSizeMb: mode.workerHeapMb } } : {}),
    });
    renderThreads = () => pool.threads();
    app.addHook('onClose', async () => pool.close());
    renderInWorker = (job) => pool.render(job);
  }
  return { loadEntry, assetsFor, publicAssetsFor, renderInWorker, renderThreads };
}

/** Development: Vite serves the sources (its middleware on the app) and loads the entry; rendering in the main thread. */
async function developmentSource(app: FastifyInstance, mode: Extract<SsrMode, { kind: 'development' }>): Promise<RenderSource> {
  const { createServer } = await import('vite');
  const middie = (await import('@fastify/middie')).default;
  const vite = await createServer({ root: mode.root, server: { middlewareMode: true }, appType: 'custom' });
  await app.register(middie);
  app.use(vite.middlewares);
  app.addHook('onClose', async () => vite.close());
  const loadEntry = async () => ((await vite.ssrLoadModule('/client/entry-server.tsx')) as EntryModule).ssrEntry;
  const assetsFor = async (url: string) => {
    // Vite adds its client and the React refresh preamble; we lift them out of its template.
    const html = await vite.transformIndexHtml(url, DEV_TEMPLATE);
    const scripts = [...html.matchAll(/<script type="module" src="([^"]+)"/g)].map((m) => m[1]!);
    const inline = [...html.matchAll(/<script type="module">([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
    return { styles: ['/client/styles.css'], scripts, preloads: [], inline } as ClientAssets & { inline: string[] };
  };
  const publicAssetsFor = async () => ({ styles: ['/client/public-pages/public.css'], scripts: ['/client/entry-public.ts'], preloads: [] });
  return { loadEntry, assetsFor, publicAssetsFor, renderInWorker: null, renderThreads: () => [] };
}

export async function createSsrRenderer(app: FastifyInstance, mode: SsrMode): Promise<SsrRenderer> {
  const { loadEntry, assetsFor, publicAssetsFor, renderInWorker, renderThreads } =
    mode.kind === 'production' ? await productionSource(app, mode) : await developmentSource(app, mode);

  return {
    enforceCsp: mode.kind === 'production',
    renderThreads: () => renderThreads(),
    async unavailablePage(lang) {
      const entry = await loadEntry();
      const t = (key: string) => escapeHtml(entry.translate(lang, key));
      return `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${t('errors.render_unavailable_title')}</title></head><body><main><h1>${t('errors.render_unavailable_title')}</h1><p>${t('errors.render_unavailable')}</p><p><a href="">${t('errors.retry')}</a></p></main></body></html>`;
    },
    async translate(lang, key) {
      return (await loadEntry()).translate(lang, key);
    },
    async render({ url, ctx, nonce, config, form }) {
      const entry = await loadEntry();
      const queryClient = entry.createSsrQueryClient();
      const helpers = createServerSideHelpers({ router: appRouter, ctx, queryClient });
      const input: RenderInput<Helpers> = { url, lang: ctx.lang, nonce, helpers, queryClient: helpers.queryClient, config, form };
      let out: RenderOutput;
      if (renderInWorker) {
        const pre = await entry.prefetch(input);
        out = pre.kind === 'public' ? pre.output : await renderInWorker(pre.job);
      } else {
        out = await entry.render(input);
      }
      const assets = out.kind === 'public' ? await publicAssetsFor(url) : await assetsFor(url, out.modules);
      const inline = (assets as ClientAssets & { inline?: string[] }).inline ?? [];
      const head = out.head + inline.map((code) => `<script type="module">${code}</script>`).join('');
      return {
        status: out.status,
        body: renderDocument({
          lang: ctx.lang,
          title: out.title,
          nonce,
          head,
          html: out.html,
          state: out.state,
          stateId: out.kind === 'public' ? PUBLIC_BOOT_ID : STATE_ELEMENT_ID,
          ...assets,
        }),
        timings: out.timings,
      };
    },
  };
}
