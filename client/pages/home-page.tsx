import { Heading, Text } from '@primer/react';
import { useTranslation } from 'react-i18next';
import { fullName, useSession } from '../session.ts';

/** Dashboard placeholder: the counters of §1 arrive with the dashboard work. */
export default function HomePage() {
  const { t } = useTranslation();
  const { user, roles } = useSession();
  return (
    <section>
      <Heading as="h1" style={{ marginBottom: 8 }} data-testid="home-welcome">
        {t('home.welcome', { name: fullName(user) })}
      </Heading>
      <Text as="p">{t('home.intro')}</Text>
      <Text as="p" style={{ color: 'var(--fgColor-muted)' }}>
        {t('home.roles', { roles: roles.join(', ') })}
      </Text>
    </section>
  );
}
