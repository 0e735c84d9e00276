import react from '@vitejs/plugin-react';
import { readFileSync } from 'node:fs';
import { defineConfig } from 'vite';

const { version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string };

/**
 * One config, two builds (`npm run build`):
 *  - client: dist/client, hashed assets + manifest for the server to link;
 *  - ssr:    dist/server, the React render entry and the server itself (deps stay external).
 */
export default defineConfig(({ isSsrBuild }) => ({
  plugins: [react()],
  publicDir: 'client/public',
  define: { __APP_VERSION__: JSON.stringify(version) },
  // Primer ships CSS files next to its JS; let Vite process them during SSR.
  ssr: { noExternal: ['@primer/react'] },
  build: isSsrBuild
    ? {
        ssr: true,
        outDir: 'dist/server',
        emptyOutDir: true,
        target: 'node24',
        rollupOptions: {
          input: { 'entry-server': 'client/entry-server.tsx', main: 'server/main.ts' },
          output: { format: 'es', entryFileNames: '[name].js' },
        },
      }
    : {
        outDir: 'dist/client',
        emptyOutDir: true,
        manifest: true,
        target: 'es2022',
        cssCodeSplit: false,
        rollupOptions: { input: 'client/entry-client.tsx' },
      },
}));
