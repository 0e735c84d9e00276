import { Blankslate } from '@primer/react/experimental';
import { useTranslation } from 'react-i18next';

/** A route of the §2 table whose screen is not built yet: reachable, guarded, and honest about it. */
export function PendingPage({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  return (
    <Blankslate border>
      <Blankslate.Heading as="h1">{t(titleKey)}</Blankslate.Heading>
      <Blankslate.Description>{t('pending.text')}</Blankslate.Description>
    </Blankslate>
  );
}
