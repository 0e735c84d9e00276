import { renderToStaticMarkup } from 'react-dom/server';
import type { AppPath } from '../../shared/route-table.ts';
import { appCodeOf } from '../errors.ts';
import { AcceptInvitationPage, ConfirmEmailPage, ForbiddenPage, ForgotPasswordPage, LoginPage, ResetPasswordPage, SecondFactorPage } from './auth-pages.tsx';
import { NotFoundPage, PLAN_SLUG, PrivacyPolicyPage, SubscriptionPlanPage, TermsPage, type PlanData } from './info-pages.tsx';
import type { PublicPageDef, PublicPageProps } from './public-page.ts';

async function loadPlan(helpers: Parameters<NonNullable<PublicPageDef['load']>>[0], params: Record<string, string>): Promise<PlanData | undefined> {
  if (!PLAN_SLUG.test(params.plan ?? '')) return undefined;
  try {
    return { plan: await helpers.subscriptionPlans.public.fetch({ slug: params.plan! }) };
  } catch (error) {
    return { error: { appCode: appCodeOf(error), message: error instanceof Error ? error.message : '' } };
  }
}

/**
 * Every route without roles, rendered on the server for the small public entry instead of the app
 * (ADR 024); the budget test checks this covers each public route of shared/route-table.ts.
 */
export const PUBLIC_PAGES: Partial<Record<AppPath, PublicPageDef>> = {
  '/login': { Page: LoginPage },
  '/login/second-factor': { Page: SecondFactorPage },
  '/forgot-password': { Page: ForgotPasswordPage },
  '/reset-password/:token': { Page: ResetPasswordPage },
  '/accept-invitation/:token': { Page: AcceptInvitationPage },
  '/confirm-email/:token/:email': { Page: ConfirmEmailPage },
  '/forbidden': { Page: ForbiddenPage },
  '/privacy-policy': { Page: PrivacyPolicyPage },
  '/terms-and-conditions/:lang': { Page: TermsPage },
  '/subscriptions/:plan/:language?': { Page: SubscriptionPlanPage, load: loadPlan },
};

/** Unknown addresses answer 404 with a public page too: there is nothing of the app to load for them. */
export const NOT_FOUND_PAGE: PublicPageDef = { Page: NotFoundPage };

/** Static markup: nothing hydrates these pages, so React's hydration markers would be bytes for nobody. */
export function renderPublicPage(def: PublicPageDef, props: PublicPageProps): string {
  return renderToStaticMarkup(<def.Page {...props} />);
}
