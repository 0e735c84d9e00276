import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/**
 * One config, two builds (`npm run build`):
 *  - client: dist/client, hashed assets + manifest for the server to link;
 *  - ssr:    dist/server, the React render entry and the server itself (deps stay external).
 */
export default defineConfig(({ isSsrBuild }) => ({
  plugins: [react()],
  publicDir: 'client/public',
  // Primer ships CSS files next to its JS, and styled-components' Node entry is CommonJS whose
  // default export Node's ESM loader does not unwrap: both are bundled into the SSR build.
  ssr: { noExternal: ['@primer/react', 'styled-components'] },
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
    : {
        outDir: 'dist/client',
        emptyOutDir: true,
        manifest: true,
        target: 'es2022',
        cssCodeSplit: false,
        rollupOptions: { input: 'client/entry-client.tsx' },
      },
}));
