import { createContext, useContext } from 'react';

/** The whitelist of configuration the browser may see (never secrets). */
export interface PublicConfig {
  googleClientId: string | null;
  version: string;
  nonce: string | null;
}

const PublicConfigContext = createContext<PublicConfig>({ googleClientId: null, version: '0.0.0', nonce: null });
export const PublicConfigProvider = PublicConfigContext.Provider;
export const usePublicConfig = () => useContext(PublicConfigContext);
