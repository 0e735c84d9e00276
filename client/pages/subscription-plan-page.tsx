import { Flash } from '@primer/react';
import { useTranslation } from 'react-i18next';
import { useParams } from 'react-router-dom';
import { isLanguage } from '../../shared/schemas/common.ts';
import { StaticPage } from '../components/static-page.tsx';
import { formatMoney } from '../entity/field-value.tsx';
import { appCodeOf, errorText } from '../errors.ts';
import { trpc } from '../trpc.ts';

const SLUG = /^[A-Za-z0-9-]{1,40}$/;

/**
 * /subscriptions/:plan/:language? (public): the plan in the language of the link, or the UI language
 * when the link has none, with its price per period in both currencies.
 */
export default function SubscriptionPlanPage() {
  const { plan = '', language } = useParams();
  const { i18n } = useTranslation();
  const textLang = isLanguage(language) ? language : isLanguage(i18n.language) ? i18n.language : 'en';
  const t = i18n.getFixedT(textLang);
  const valid = SLUG.test(plan);
  const query = trpc.subscriptionPlans.public.useQuery({ slug: plan }, { enabled: valid });
  const data = query.data;

  if (!valid || appCodeOf(query.error) === 'not_found') {
    return (
      <StaticPage title={t('plans.notFoundTitle')} lang={textLang}>
        <p data-testid="plan-not-found">{t('plans.notFound', { plan })}</p>
      </StaticPage>
    );
  }
  if (query.error) {
    return (
      <StaticPage title={t('routes.subscriptionPlan')} lang={textLang}>
        <Flash variant="danger">{errorText(t, query.error)}</Flash>
      </StaticPage>
    );
  }
  if (!data) {
    return (
      <StaticPage title={t('routes.subscriptionPlan')} lang={textLang}>
        <p role="status">{t('app.loading')}</p>
      </StaticPage>
    );
  }
  const name = textLang === 'sv' ? data.name_sv : data.name_en;
  const description = textLang === 'sv' ? data.description_sv : data.description_en;
  const per = t(`plans.per.${data.frequency}`);
  return (
    <StaticPage title={t('plans.title', { plan: name })} lang={textLang}>
      <div data-testid="plan-body">
        {description && <p>{description}</p>}
        <p style={{ fontSize: 20, fontWeight: 600 }} data-testid="plan-prices">
          {`${formatMoney(data.price_sek, 'sek', textLang)} ${per} · ${formatMoney(data.price_gbp, 'gbp', textLang)} ${per}`}
        </p>
        <p>{t('plans.bicycles', { count: data.bicycles })}</p>
        <p>{t('plans.contact', { plan: name })}</p>
      </div>
    </StaticPage>
  );
}
