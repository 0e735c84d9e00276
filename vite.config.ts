import react from '@vitejs/plugin-react';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { defineConfig, type Plugin } from 'vite';
import type { CodeSplittingGroup } from 'rolldown';
import { TRANSLATION_LOADERS, TRANSLATIONS_PREFIX, pickGroups } from './client/translation-parts.ts';
import { ICON_SPRITE_MODULE, SPRITE_ICON_OCTICONS } from './client/components/sprite-icon-names.ts';
import { createHash } from 'node:crypto';
import { ASSET_DIR } from './shared/static-assets.ts';
import { ENTITY_ROUTES } from './shared/entity-routes.ts';

/**
 * Primer's light theme as the app uses it. The package's light.css declares every colour twice: for
 * `data-color-mode="light"`, and again inside `@media (prefers-color-scheme: dark)` for a page in "auto"
 * mode whose dark theme is light. The app always renders in light mode, so the second half (9.5 KB of
 * the 25 KB CSS budget, gzip; too far apart for gzip to share) is left out.
 */
const LIGHT_THEME_ID = 'virtual:primer-light-theme.css';
function primerLightTheme(): Plugin {
  return {
    name: 'backoffice-primer-light-theme',
    resolveId: (id) => (id === LIGHT_THEME_ID ? '\0' + LIGHT_THEME_ID : undefined),
    load(id) {
      if (id !== '\0' + LIGHT_THEME_ID) return undefined;
      const css = readFileSync(fileURLToPath(import.meta.resolve('@primer/primitives/dist/css/functional/themes/light.css')), 'utf8');
      const autoDark = css.indexOf('@media (prefers-color-scheme: dark)');
      return autoDark > 0 ? css.slice(0, autoDark) : css;
    },
  };
}

/**
 * The browser's translations in parts (client/translation-parts.ts, ADR 024): `virtual:translations/<lang>/<part>`
 * is common.json's first-load groups (`core`), the others (`more`; `later`: those only screens that wait for every
 * text use), resources.json (`resources`) or one
 * entity's labels (`resources/<entity>`); `virtual:translations/loaders` imports each of them lazily.
 */
function translationParts(): Plugin {
  const localeFile = (lang: string, file: string) => fileURLToPath(new URL(`./locales/${lang}/${file}.json`, import.meta.url));
  const languages = () => readdirSync(fileURLToPath(new URL('./locales/', import.meta.url))).filter((lang) => /^[a-z]{2}$/.test(lang));
  const read = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  return {
    name: 'backoffice-translation-parts',
    resolveId: (id) => (id.startsWith(TRANSLATIONS_PREFIX) ? '\0' + id : undefined),
    load(id) {
      if (!id.startsWith('\0' + TRANSLATIONS_PREFIX)) return undefined;
      if (id === '\0' + TRANSLATION_LOADERS) {
        const entries = languages().map((lang) => {
          const part = (name: string) => `() => import(${JSON.stringify(`${TRANSLATIONS_PREFIX}${lang}/${name}`)})`;
          // `_`-prefixed groups are no entity's (`_history`, the history screens' texts): they come with the whole file only.
          const entities = Object.keys(read(localeFile(lang, 'resources')))
            .filter((key) => !key.startsWith('_'))
            .map((entity) => `${JSON.stringify(entity)}: ${part(`resources/${entity}`)}`);
          return `${lang}: { core: ${part('core')}, more: ${part('more')}, later: ${part('later')}, resources: ${part('resources')}, entities: { ${entities.join(', ')} } }`;
        });
        return `export default { ${entries.join(',\n')} };`;
      }
      const [lang, part, entity] = id.slice(TRANSLATIONS_PREFIX.length + 1).split('/') as [string, 'core' | 'more' | 'later' | 'resources', string | undefined];
      if (!languages().includes(lang)) throw new Error(`no translations for ${lang}`);
      const file = localeFile(lang, part === 'resources' ? 'resources' : 'common');
      this.addWatchFile(file);
      const all = read(file);
      const picked = part === 'resources' ? (entity ? { [entity]: all[entity] } : all) : pickGroups(all, part);
      // JSON.parse of a string literal: parsed faster than the same object as a JavaScript literal.
      return `export default JSON.parse(${JSON.stringify(JSON.stringify(picked))});`;
    },
  };
}

/**
 * The entities' screen routes (ADR 031) for the browser: `shared/entity-routes.ts` derives them from the
 * registry, which imports every definition; the client builds get the same rows as plain data instead, so
 * the route table of the first load stays small (ADR 024). Server builds and Node use the module itself.
 */
function entityRoutes(): Plugin {
  const file = fileURLToPath(new URL('./shared/entity-routes.ts', import.meta.url));
  return {
    name: 'backoffice-entity-routes',
    load(id) {
      if (id.split('?')[0] !== file || this.environment.config.consumer !== 'client') return undefined;
      return `export const ENTITY_ROUTES = JSON.parse(${JSON.stringify(JSON.stringify(ENTITY_ROUTES))});`;
    },
  };
}

/**
 * The icon sprite (client/components/sprite-icon-names.ts, ADR 024): each octicon's 16 px drawing, read
 * from its module in @primer/octicons-react, as a `<symbol>` of one SVG file with a content hash, written
 * into the client build and served cached like the other assets; `virtual:icon-sprite` is its address.
 */
function iconSprite(): Plugin {
  const ID = '\0' + ICON_SPRITE_MODULE;
  let sprite: { fileName: string; source: string } | undefined;
  const pathsOf = (octicon: string): string[] => {
    const file = join(dirname(fileURLToPath(import.meta.resolve('@primer/octicons-react'))), 'icons', `${octicon}.mjs`);
    const code = readFileSync(file, 'utf8');
    const start = code.indexOf('"16": {');
    const end = code.indexOf('\n\t}', start);
    const paths = start < 0 ? [] : [...code.slice(start, end).matchAll(/d: "([^"]+)"/g)].map((m) => m[1]!);
    if (paths.length === 0) throw new Error(`no 16 px drawing in ${file}`);
    return paths;
  };
  const built = () => {
    if (sprite) return sprite;
    const symbols = Object.entries(SPRITE_ICON_OCTICONS).map(
      ([name, octicon]) =>
        `<symbol id="${name}" viewBox="0 0 16 16">${pathsOf(octicon)
          .map((d) => `<path d="${d}"/>`)
          .join('')}</symbol>`,
    );
    const source = `<svg xmlns="http://www.w3.org/2000/svg">${symbols.join('')}</svg>`;
    return (sprite = { fileName: `${ASSET_DIR}/icons-${createHash('sha256').update(source).digest('base64url').slice(0, 8)}.svg`, source });
  };
  return {
    name: 'backoffice-icon-sprite',
    resolveId: (id) => (id === ICON_SPRITE_MODULE ? ID : undefined),
    load: (id) => (id === ID ? `export default ${JSON.stringify('/' + built().fileName)};` : undefined),
    generateBundle() {
      const { build } = this.environment.config;
      if (!build.ssr && build.manifest === true) this.emitFile({ type: 'asset', fileName: built().fileName, source: built().source });
    },
    configureServer(server) {
      server.middlewares.use((req, res, next) => {
        if (req.url !== '/' + built().fileName) return next();
        res.setHeader('content-type', 'image/svg+xml');
        res.end(built().source);
      });
    },
  };
}

/**
 * Octicons ship every icon drawn at 16 and at 24 px; the app draws them at 16 px or smaller, so the
 * 24 px paths (half of every icon module) are dropped from the client build. An icon asked for larger
 * would be scaled from its 16 px drawing.
 */
function octicons16(): Plugin {
  const iconModule = /@primer\/octicons-react\/dist\/icons\/\w+\.mjs$/;
  return {
    name: 'backoffice-octicons-16',
    apply: 'build',
    transform(code, id) {
      if (!iconModule.test(id) || !code.includes('var heights = ["16", "24"];')) return undefined;
      const start = code.indexOf(',\n\t"24": {');
      const end = code.indexOf('\n\t}\n};', start);
      if (start < 0 || end < 0) return undefined;
      const trimmed = code.slice(0, start) + code.slice(end + 3);
      return { code: trimmed.replace('var heights = ["16", "24"];', 'var heights = ["16"];'), map: null };
    },
  };
}

/**
 * React Router 7 exports its development build for every condition (remix-run/react-router#14102, open):
 * dev warnings and checks in production, on the server and in the browser. Its production build ships in
 * the same package; the builds use it (react-router is bundled into the server build for that, below).
 */
function reactRouterProduction(): Plugin {
  const builds: Record<string, string> = { 'react-router': 'index.mjs', 'react-router/dom': 'dom-export.mjs' };
  return {
    name: 'backoffice-react-router-production',
    apply: 'build',
    enforce: 'pre',
    resolveId(id) {
      const file = builds[id];
      return file ? fileURLToPath(new URL(`./node_modules/react-router/dist/production/${file}`, import.meta.url)) : undefined;
    },
  };
}

/**
 * Primer's BaseStyles imports the `focus-visible` polyfill (for browsers before 2021); every browser the
 * build targets (es2022) has `:focus-visible`, which Primer's CSS uses first. Not shipped.
 */
function noFocusVisiblePolyfill(): Plugin {
  const EMPTY = '\0no-focus-visible-polyfill';
  return {
    name: 'backoffice-no-focus-visible-polyfill',
    apply: 'build',
    enforce: 'pre',
    resolveId: (id) => (id === 'focus-visible' ? EMPTY : undefined),
    load: (id) => (id === EMPTY ? 'export {};' : undefined),
  };
}

/**
 * Writes `.br` and `.gz` beside every built asset, so the server sends compressed files with no work per
 * request (@fastify/static `preCompressed`). On a slow network this is most of the first-load time.
 */
function precompress(): Plugin {
  return {
    name: 'backoffice-precompress',
    apply: 'build',
    writeBundle(options) {
      if (this.environment.config.build.ssr) return;
      const dir = join(options.dir!, ASSET_DIR);
      for (const file of readdirSync(dir)) {
        if (!/\.(js|css|svg|json)$/.test(file)) continue;
        // Names carry a content hash: a file compressed by the other client build is already current.
        if (existsSync(join(dir, file + '.br'))) continue;
        // Small files too (ADR 062): a 700-byte chunk sent as it is was ~40% larger than compressed. A
        // compressed copy no smaller than the file is not written, so the file itself is sent.
        const body = readFileSync(join(dir, file));
        const br = brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } });
        const gz = gzipSync(body, { level: 9 });
        if (br.length < body.length) writeFileSync(join(dir, file + '.br'), br);
        if (gz.length < body.length) writeFileSync(join(dir, file + '.gz'), gz);
      }
    },
  };
}

/**
 * Which chunk each of the app's source modules ended up in, as `.vite/module-chunks.json`: the server links
 * a route's lazy modules by source path, and a module that other chunks also import statically is bundled
 * into a shared chunk that the manifest names only by its file (server/ssr/manifest.ts `manifestKeyOf`).
 */
function moduleChunks(): Plugin {
  return {
    name: 'backoffice-module-chunks',
    apply: 'build',
    generateBundle(_options, bundle) {
      const { build, root } = this.environment.config;
      if (build.ssr || build.manifest !== true) return;
      const map: Record<string, string> = {};
      for (const output of Object.values(bundle)) {
        if (output.type !== 'chunk') continue;
        for (const id of output.moduleIds) {
          if (id.startsWith(root) && !id.includes('/node_modules/')) map[relative(root, id)] = output.fileName;
          else if (id.startsWith('\0' + TRANSLATIONS_PREFIX)) map[id.slice(1)] = output.fileName;
        }
      }
      this.emitFile({ type: 'asset', fileName: '.vite/module-chunks.json', source: JSON.stringify(map) });
    },
  };
}

/**
 * How the app's modules are grouped into files. Everything the entry imports statically is downloaded by every
 * page anyway: one chunk for it (and the bundler's runtime, which every chunk imports) instead of the several
 * Rolldown would split out because lazy pages share some of it. On HTTP/1.1 every further file costs ~0.7 KB of
 * response headers and a request (ADR 062), so small modules that are always loaded together share a file:
 * the engine's helpers nearly every screen uses, the list screen's parts, the two modules every signed-in page
 * starts once it has loaded, a record's actions with the versions they send, Today's page with its query. Every entity's labels (`resources`) are a file per language, apart from the texts of the
 * screens that load all theirs first (`later`), which a first visit does not fetch (ADR 077).
 */
const ENGINE =
  /\/(shared\/(entity\/(define|fields)|entities\/people|geo|format)|client\/entity\/(access|status-label|entity-api|new-record-title|seeded-names|reference-choices)|client\/components\/(calendar-dates))\.tsx?$/;
const LIST_PARTS = /\/client\/(components\/(data-table|pager)|entity\/csv-export)\.(tsx?|css)$/;
const AFTER_LOAD = /\/client\/shell\/(live-updates|offline-worker)\.ts$/;
const RECORD_ACTIONS = /\/client\/entity\/(record-actions|own-versions)\.tsx?$/;
const TODAY = /\/client\/pages\/(today-page|today-query)\.tsx?$/;
const RESOURCE_TEXTS = /^\0?virtual:translations\/(\w+)\/resources$/;
const CHUNK_GROUPS: CodeSplittingGroup[] = [
  { name: 'app', tags: ['$initial'], priority: 10 },
  { name: 'engine', test: ENGINE },
  { name: 'list-parts', test: LIST_PARTS },
  { name: 'after-load', test: AFTER_LOAD },
  { name: 'record-actions', test: RECORD_ACTIONS },
  { name: 'today', test: TODAY },
  { name: (id: string) => `${RESOURCE_TEXTS.exec(id)?.[1] ?? 'xx'}-resources`, test: RESOURCE_TEXTS },
];

/** The public pages' script (ADR 024), built on its own: see `--mode public` below. */
export const PUBLIC_ENTRY = 'client/entry-public.ts';

/**
 * One config, three builds (`npm run build`):
 *  - client: dist/client, hashed assets + manifest for the server to link;
 *  - public (`--mode public`): the public pages' script into the same dist/client, with a manifest of its
 *    own. Built apart because chunks shared with the app would carry the app's half of zod into it:
 *    alone it tree-shakes to the zod/mini it uses (~5 KB instead of ~15 KB gzip);
 *  - ssr:    dist/server, the React render entry and the server itself (deps stay external).
 */
export default defineConfig(({ command, isSsrBuild, mode }) => ({
  plugins: [
    react(),
    primerLightTheme(),
    translationParts(),
    entityRoutes(),
    iconSprite(),
    octicons16(),
    reactRouterProduction(),
    noFocusVisiblePolyfill(),
    moduleChunks(),
    precompress(),
  ],
  publicDir: 'client/public',
  // Leaflet's package names its UMD build as `main`, which the bundler takes whole; its ES module build
  // (the same code) lets the map's chunk leave out the parts the map does not use (ADR 062).
  resolve: { alias: [{ find: /^leaflet$/, replacement: fileURLToPath(new URL('./node_modules/leaflet/dist/leaflet-src.esm.js', import.meta.url)) }] },
  // Primer ships CSS files next to its JS, and styled-components' Node entry is CommonJS whose
  // default export Node's ESM loader does not unwrap: both are bundled into the SSR build. React Router
  // is bundled by the build so that the server runs its production build too (reactRouterProduction),
  // with the versions of its dependencies it was built with (the app's own `cookie` is another major
  // version); the dev server loads it as Node does.
  ssr: { noExternal: ['@primer/react', 'styled-components', ...(command === 'build' ? ['react-router', 'react-router-dom', 'cookie', 'set-cookie-parser'] : [])] },
  build: isSsrBuild
    ? {
        ssr: true,
        outDir: 'dist/server',
        copyPublicDir: false,
        emptyOutDir: true,
        target: 'node24',
        rollupOptions: {
          input: { 'entry-server': 'client/entry-server.tsx', main: 'server/main.ts' },
          output: { format: 'es', entryFileNames: '[name].js' },
        },
      }
    : mode === 'public'
      ? {
          outDir: 'dist/client',
          emptyOutDir: false,
          copyPublicDir: false,
          manifest: '.vite/manifest-public.json',
          assetsDir: ASSET_DIR,
          target: 'es2022',
          rollupOptions: { input: PUBLIC_ENTRY },
        }
      : {
          outDir: 'dist/client',
          emptyOutDir: true,
          manifest: true,
          assetsDir: ASSET_DIR,
          target: 'es2022',
          // Each chunk carries the CSS of the components it uses; the server links a route's CSS only.
          cssCodeSplit: true,
          rollupOptions: {
            input: 'client/entry-client.tsx',
            // Everything the entry imports statically is downloaded by every page anyway: one chunk for it
            // instead of the several Rolldown would split out because lazy pages share some of it.
            output: { codeSplitting: { groups: CHUNK_GROUPS } },
          },
        },
}));
