import type { TFunction } from 'i18next';
import type { ComponentType } from 'react';
import type { createServerSideHelpers } from '@trpc/react-query/server';
import type { AppRouter } from '../../server/trpc/router.ts';
import type { Language } from '../../shared/languages.ts';
import type { PublicFormResult } from '../../shared/ssr-contract.ts';

export type ServerHelpers = ReturnType<typeof createServerSideHelpers<AppRouter>>;

/** What a public page is rendered from, on the server only (ADR 024). */
export interface PublicPageProps {
  t: TFunction;
  /** Translations in another language: pages whose URL names the language of their text. */
  tIn: (lang: Language) => TFunction;
  lang: Language;
  /** The request's path (the action of a form that posts back to its own page). */
  path: string;
  params: Record<string, string>;
  search: URLSearchParams;
  googleClientId: string | null;
  /** The outcome of the form this page just received (server/public-forms.ts). */
  form?: PublicFormResult;
  /** What `load` fetched. */
  data?: unknown;
}

export interface PublicPageDef {
  Page: ComponentType<PublicPageProps>;
  /** Data fetched before rendering (never throws: a failure is data the page shows). */
  load?: (helpers: ServerHelpers, params: Record<string, string>) => Promise<unknown>;
}
