import { Button } from '@primer/react';
import { XCircleIcon } from '@primer/octicons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { EXPERT_REQUEST_FLOW, EXPERT_REQUEST_STATUS, expertRequestsEntity } from '../../shared/entities/expert-requests.ts';
import { labelOf, nextStatuses, type EntityRecord } from '../../shared/entity/define.ts';
import { useAccess } from '../entity/access.ts';
import { useEntityUtils } from '../entity/entity-api.ts';
import { ResourceListPage } from '../entity/resource-list-page.tsx';
import { errorText } from '../errors.ts';
import { useConfirm } from '../shell/confirm.tsx';
import { useToast } from '../shell/toasts.tsx';
import { trpc } from '../trpc.ts';

/** Cancel with confirmation: the button shows the request in flight; success and failure each get a toast (§4). */
function CancelButton({ record }: { record: EntityRecord }) {
  const { t } = useTranslation();
  const toast = useToast();
  const confirm = useConfirm();
  const access = useAccess(expertRequestsEntity);
  const utils = useEntityUtils(expertRequestsEntity);
  const cancel = trpc.expertRequests.transition.useMutation();
  const [pending, setPending] = useState(false);
  if (!nextStatuses(EXPERT_REQUEST_FLOW, Number(record.status), access.roles).includes(EXPERT_REQUEST_STATUS.Canceled)) return null;
  const name = labelOf(expertRequestsEntity, record);
  return (
    <Button
      size="small"
      variant="danger"
      leadingVisual={XCircleIcon}
      loading={pending}
      data-testid={`cancel-${record.id}`}
      aria-label={t('expert.cancelLabel', { name })}
      onClick={async () => {
        if (!(await confirm({ title: t('expert.cancelTitle'), message: t('expert.cancelConfirm', { date: String(record.requested_date), name: String(record.user_id_label ?? '') }), danger: true }))) return;
        setPending(true);
        try {
          await cancel.mutateAsync({ id: record.id, to: EXPERT_REQUEST_STATUS.Canceled, version: record.version });
          await utils.list.invalidate();
          toast.success(t('expert.canceled', { name }));
        } catch (error) {
          toast.error(t('expert.cancelFailed', { reason: errorText(t, error) }));
          await utils.list.invalidate();
        } finally {
          setPending(false);
        }
      }}
      style={{ marginRight: 4 }}
    >
      {t('expert.cancel')}
    </Button>
  );
}

/** /expert ("Bike Expert"): expert requests with their requested date and status; open ones can be cancelled. */
export default function ExpertPage() {
  const { t } = useTranslation();
  return <ResourceListPage def={expertRequestsEntity} title={t('routes.expert')} rowActions={(record) => <CancelButton record={record} />} />;
}
