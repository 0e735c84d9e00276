import type { PublicPlan } from '../../shared/schemas/subscriptions.ts';
import { isLanguage } from '../../shared/languages.ts';
import { formatMoney } from '../../shared/format.ts';
import { errorText } from '../errors.ts';
import { Flash, StaticLayout } from './public-layout.tsx';
import type { PublicPageProps } from './public-page.ts';

export function PrivacyPolicyPage({ t, lang }: PublicPageProps) {
  return (
    <StaticLayout t={t} lang={lang} title={t('legal.privacyTitle')}>
      <p>{t('legal.privacyBody')}</p>
    </StaticLayout>
  );
}

/** /terms-and-conditions/:lang shows the terms in the language of the link, whatever the UI language. */
export function TermsPage({ t, tIn, lang, params }: PublicPageProps) {
  const textLang = isLanguage(params.lang) ? params.lang : 'en';
  const tt = tIn(textLang);
  return (
    <StaticLayout t={t} lang={lang} title={tt('legal.termsTitle')} textLang={textLang}>
      <p>{tt('legal.termsBody')}</p>
    </StaticLayout>
  );
}

export function NotFoundPage({ t, lang }: PublicPageProps) {
  return (
    <StaticLayout t={t} lang={lang} title={t('routes.notFound')}>
      <p>{t('notFound.text')}</p>
      <a href="/">{t('notFound.goHome')}</a>
    </StaticLayout>
  );
}

export const PLAN_SLUG = /^[A-Za-z0-9-]{1,40}$/;

/** What the server fetched for a plan page: the plan, or why there is none. */
export type PlanData = { plan: PublicPlan } | { error: { appCode: string | null; message: string } };

/**
 * /subscriptions/:plan/:language? (public): the plan in the language of the link, or the UI language
 * when the link has none, with its price per period in both currencies.
 */
export function SubscriptionPlanPage({ t, tIn, lang, params, data }: PublicPageProps) {
  const textLang = isLanguage(params.language) ? params.language : lang;
  const tt = tIn(textLang);
  const result = data as PlanData | undefined;
  if (!PLAN_SLUG.test(params.plan ?? '') || !result || ('error' in result && result.error.appCode === 'not_found')) {
    return (
      <StaticLayout t={t} lang={lang} title={tt('plans.notFoundTitle')} textLang={textLang}>
        <p data-testid="plan-not-found">{tt('plans.notFound', { plan: params.plan })}</p>
      </StaticLayout>
    );
  }
  if ('error' in result) {
    return (
      <StaticLayout t={t} lang={lang} title={tt('routes.subscriptionPlan')} textLang={textLang}>
        <Flash variant="danger">{errorText(tt, { message: result.error.message, data: { appCode: result.error.appCode } })}</Flash>
      </StaticLayout>
    );
  }
  const plan = result.plan;
  const name = textLang === 'sv' ? plan.name_sv : plan.name_en;
  const description = textLang === 'sv' ? plan.description_sv : plan.description_en;
  const per = tt(`plans.per.${plan.frequency}`);
  return (
    <StaticLayout t={t} lang={lang} title={tt('plans.title', { plan: name })} textLang={textLang}>
      <div className="static-body" data-testid="plan-body">
        {description && <p>{description}</p>}
        <p className="price" data-testid="plan-prices">
          {`${formatMoney(plan.price_sek, 'sek', textLang)} ${per} · ${formatMoney(plan.price_gbp, 'gbp', textLang)} ${per}`}
        </p>
        <p>{tt('plans.bicycles', { count: plan.bicycles })}</p>
        <p>{tt('plans.contact', { plan: name })}</p>
      </div>
    </StaticLayout>
  );
}
