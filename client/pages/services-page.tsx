import { Button } from '@primer/react';
import { CalendarIcon } from '@primer/octicons-react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { servicesEntity } from '../../shared/entities/services.ts';
import { ResourceListPage } from '../entity/resource-list-page.tsx';

/** /services: the generic list (a Buddy gets only theirs, from the API) with a way to the calendar. */
export default function ServicesPage() {
  const { t } = useTranslation();
  return (
    <ResourceListPage
      def={servicesEntity}
      headerActions={
        <Button as={Link} to="/services/calendar" leadingVisual={CalendarIcon} data-testid="open-calendar">
          {t('routes.servicesCalendar')}
        </Button>
      }
    />
  );
}
