import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ensureBuild } from './ensure-build.ts';

// `npm start` serves the production build, building it first when it is missing or stale.
ensureBuild();
process.env.NODE_ENV ??= 'production';
await import(pathToFileURL(join(import.meta.dirname, '..', 'dist', 'server', 'main.js')).href);
