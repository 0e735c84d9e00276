/**
 * The folder of the client build's hashed files, served at `/<ASSET_DIR>/…` (cached for a year). Not Vite's
 * default `assets`: the assets entity's pages are `/assets` and `/assets/:id`, and a stale chunk a browser
 * asks for after a deploy must get a 404, not that entity's page (tests/unit/route-table.test.ts).
 */
export const ASSET_DIR = 'static';
