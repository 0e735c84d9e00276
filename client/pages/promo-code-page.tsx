import { Heading } from '@primer/react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { promoCodesEntity } from '../../shared/entities/promo-codes.ts';
import { ResourceDetailPage } from '../entity/resource-detail-page.tsx';
import { trpc } from '../trpc.ts';
import { breakableText } from '../components/breakable-text.tsx';
import { formatDate } from '../../shared/format.ts';

/** Promo code = the generic detail page plus the users who used the code. */
function PromoCodeUsers({ id }: { id: number }) {
  const { t, i18n } = useTranslation();
  const users = trpc.promoCodes.users.list.useQuery({ id });
  return (
    <section style={{ marginTop: 32 }} data-testid="promo-code-users">
      <Heading as="h2" style={{ fontSize: 18, marginBottom: 8 }}>
        {t('promoCodes.usersTitle')}
      </Heading>
      {!users.data ? null : users.data.length === 0 ? (
        <p style={{ color: 'var(--fgColor-muted)' }}>{t('promoCodes.noUsers')}</p>
      ) : (
        <ul>
          {users.data.map((u) => (
            <li key={u.user_id}>
              <Link to={`/users/${u.user_id}`}>{[u.first_name, u.last_name].filter(Boolean).join(' ') || u.email}</Link> — {breakableText(u.email)} ·{' '}
              {formatDate(u.used_at, i18n.language)}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

export default function PromoCodePage() {
  return <ResourceDetailPage def={promoCodesEntity}>{(id) => <PromoCodeUsers id={id} />}</ResourceDetailPage>;
}
