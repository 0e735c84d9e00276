import { BaseStyles } from '@primer/react';
// The JavaScript-theme-free provider: the colours come from the primitives CSS variables, so the legacy
// theme object (and its deep merge on every render) is neither shipped nor computed.
import { ThemeProvider } from '@primer/react/next';
import { QueryClientProvider, type QueryClient } from '@tanstack/react-query';
import type { i18n } from 'i18next';
import type { ReactNode } from 'react';
import { I18nextProvider } from 'react-i18next';
import { AppRoutes } from './routes.tsx';
import { ConfirmProvider } from './shell/confirm.tsx';
import { ToastProvider } from './shell/toasts.tsx';
import { PublicConfigProvider, type PublicConfig } from './public-config.tsx';
import { SessionProvider } from './session.ts';
import { trpc, type createTrpcClient } from './trpc.ts';

interface Props {
  queryClient: QueryClient;
  trpcClient: ReturnType<typeof createTrpcClient>;
  i18n: i18n;
  config: PublicConfig;
  /** StaticRouter on the server, BrowserRouter in the browser. */
  router: (children: ReactNode) => ReactNode;
}

export function App({ queryClient, trpcClient, i18n, config, router }: Props) {
  return (
    <PublicConfigProvider value={config}>
      <trpc.Provider client={trpcClient} queryClient={queryClient}>
        <QueryClientProvider client={queryClient}>
          <I18nextProvider i18n={i18n}>
            <ThemeProvider colorMode="day">
              <BaseStyles>
                <SessionProvider>
                  <ToastProvider>
                    <ConfirmProvider>{router(<AppRoutes />)}</ConfirmProvider>
                  </ToastProvider>
                </SessionProvider>
              </BaseStyles>
            </ThemeProvider>
          </I18nextProvider>
        </QueryClientProvider>
      </trpc.Provider>
    </PublicConfigProvider>
  );
}
