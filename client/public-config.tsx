import { createContext, useContext } from 'react';
import type { MapConfig } from '../shared/geo.ts';
import type { SsrConfig } from '../shared/ssr-contract.ts';

export type { MapConfig };

/** The whitelist of configuration the browser may see (never secrets). */
export interface PublicConfig extends SsrConfig {
  nonce: string | null;
}

/** Only a fallback for renders outside the app (the server always sends the real configuration). */
export const DEFAULT_MAP_CONFIG: MapConfig = { centre: { lat: 0, lng: 0 }, radiusMetres: 0, tileUrl: null, tileAttribution: '', geocoding: false };

const PublicConfigContext = createContext<PublicConfig>({ googleClientId: null, version: '0.0.0', nonce: null, map: DEFAULT_MAP_CONFIG });
export const PublicConfigProvider = PublicConfigContext.Provider;
export const usePublicConfig = () => useContext(PublicConfigContext);
