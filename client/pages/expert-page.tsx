import { useTranslation } from 'react-i18next';
import { EXPERT_REQUEST_STATUS, expertRequestsEntity } from '../../shared/entities/expert-requests.ts';
import { RecordActions } from '../entity/record-actions.tsx';
import { ResourceListPage } from '../entity/resource-list-page.tsx';

const CANCELED: readonly number[] = [EXPERT_REQUEST_STATUS.Canceled];

/** /expert ("Bike Expert"): expert requests with their requested date and status; open ones can be cancelled (§4). */
export default function ExpertPage() {
  const { t } = useTranslation();
  return (
    <ResourceListPage
      def={expertRequestsEntity}
      title={t('routes.expert')}
      rowActions={(record) => (
        <RecordActions def={expertRequestsEntity} record={record} only={['transition']} targets={CANCELED} variant="compact" testId={() => `cancel-${record.id}`} />
      )}
    />
  );
}
