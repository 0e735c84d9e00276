import { Avatar, Button, Checkbox, FormControl, Heading, IconButton, Label, Textarea } from '@primer/react';
import { ImageIcon, TrashIcon } from '@primer/octicons-react';
import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import styled from 'styled-components';
import { SERVICE_CHECK_STATUSES } from '../../shared/entities/service-items.ts';
import { SERVICE_STATUS, SERVICE_STATUS_FLOW, servicesEntity } from '../../shared/entities/services.ts';
import type { ServiceDetailRow } from '../../shared/schemas/services.ts';
import { useImageUpload } from '../components/image-upload.tsx';
import { useAccess } from '../entity/access.ts';
import { RecordActions } from '../entity/record-actions.tsx';
import { ResourceDetailPage } from '../entity/resource-detail-page.tsx';
import { StatusLabel, statusText } from '../entity/status-label.tsx';
import { errorText, fieldText } from '../errors.ts';
import { useConfirm } from '../shell/confirm.tsx';
import { useToast } from '../shell/toasts.tsx';
import { trpc } from '../trpc.ts';

const Items = styled.ol`
  list-style: none;
  margin: 0;
  padding: 0;
  display: grid;
  grid-template-columns: repeat(auto-fill, minmax(300px, 1fr));
  gap: 12px;
  > li {
    border: 1px solid var(--borderColor-default, #d0d7de);
    border-radius: 6px;
    padding: 12px;
    display: grid;
    gap: 10px;
    align-content: start;
    min-width: 0;
  }
  fieldset {
    border: 0;
    margin: 0;
    padding: 0;
    display: flex;
    flex-wrap: wrap;
    gap: 8px;
  }
  fieldset label {
    display: inline-flex;
    align-items: center;
    gap: 4px;
    cursor: pointer;
  }
`;

const CHECK_COLOR = { red: 'danger', green: 'success' } as const;

function CheckStatus({ value }: { value: number | null }) {
  const { t } = useTranslation();
  const status = SERVICE_CHECK_STATUSES.find((s) => s.id === value);
  if (!status) return <Label variant="secondary">{t('services.notChecked')}</Label>;
  return (
    <Label variant={CHECK_COLOR[status.color]} data-testid="check-status" data-check={status.id}>
      {t(`resources.service-items.checkStatuses.${status.key}`)}
    </Label>
  );
}

type Refresh = () => Promise<void>;

/** What a checklist item's form holds (check status, needs repair, notes), and its save. */
function useDetailForm(serviceId: number, row: ServiceDetailRow, name: string, refresh: Refresh) {
  const { t } = useTranslation();
  const toast = useToast();
  const save = trpc.services.details.set.useMutation();
  const detail = row.detail;
  const [checkStatus, setCheckStatus] = useState<number | null>(detail?.check_status ?? null);
  const [needsRepair, setNeedsRepair] = useState(detail?.needs_repair ?? false);
  const [notes, setNotes] = useState(detail?.notes ?? '');
  const [error, setError] = useState<string | undefined>();
  const dirty = checkStatus !== (detail?.check_status ?? null) || needsRepair !== (detail?.needs_repair ?? false) || notes !== (detail?.notes ?? '');

  const chooseCheckStatus = (id: number) => {
    setCheckStatus(id);
    setError(undefined);
    if (id === 1) setNeedsRepair(true);
  };

  const onSave = async () => {
    if (checkStatus === null) {
      setError('validation.checkStatusRequired');
      return;
    }
    try {
      await save.mutateAsync({ id: serviceId, key: row.service_item_id, check_status: checkStatus as 1 | 2 | 3, needs_repair: needsRepair, notes });
      await refresh();
      toast.success(t('services.detailSaved', { name }));
    } catch (e) {
      toast.error(errorText(t, e));
    }
  };

  return { checkStatus, chooseCheckStatus, needsRepair, setNeedsRepair, notes, setNotes, error, dirty, saving: save.isPending, onSave };
}

type DetailForm = ReturnType<typeof useDetailForm>;

/** The editable fields of a checklist item: its check status, needs repair and notes. */
function DetailFields({ row, name, form }: { row: ServiceDetailRow; name: string; form: DetailForm }) {
  const { t } = useTranslation();
  return (
    <>
      <fieldset>
        <legend className="visually-hidden">{t('services.checkStatusOf', { name })}</legend>
        {SERVICE_CHECK_STATUSES.map((s) => (
          <label key={s.id}>
            <input type="radio" name={`check-${row.service_item_id}`} value={s.id} checked={form.checkStatus === s.id} onChange={() => form.chooseCheckStatus(s.id)} />
            <Label variant={CHECK_COLOR[s.color]}>{t(`resources.service-items.checkStatuses.${s.key}`)}</Label>
          </label>
        ))}
      </fieldset>
      {form.error && (
        <span role="alert" style={{ color: 'var(--fgColor-danger)', fontSize: 12 }}>
          {fieldText(t, form.error)}
        </span>
      )}
      <FormControl>
        <Checkbox checked={form.needsRepair} onChange={(e) => form.setNeedsRepair(e.target.checked)} />
        <FormControl.Label>{t('services.needsRepair')}</FormControl.Label>
      </FormControl>
      <FormControl>
        <FormControl.Label>{t('services.notes')}</FormControl.Label>
        <Textarea value={form.notes} onChange={(e) => form.setNotes(e.target.value)} block rows={2} maxLength={2000} />
      </FormControl>
    </>
  );
}

/** A read-only checklist item: needs repair, and its notes. */
function DetailSummary({ detail }: { detail: ServiceDetailRow['detail'] }) {
  const { t } = useTranslation();
  return (
    <>
      {detail?.needs_repair && (
        <span>
          <Label variant="danger">{t('services.needsRepair')}</Label>
        </span>
      )}
      {detail?.notes && <p style={{ margin: 0, whiteSpace: 'pre-wrap' }}>{detail.notes}</p>}
    </>
  );
}

/** A checklist item's images, each removable (after a confirmation) while the item is editable. */
function DetailImages({ serviceId, row, name, editable, refresh }: { serviceId: number; row: ServiceDetailRow; name: string; editable: boolean; refresh: Refresh }) {
  const { t } = useTranslation();
  const toast = useToast();
  const confirm = useConfirm();
  const removeImage = trpc.services.removeDetailImage.useMutation();
  const detail = row.detail;
  if ((detail?.images.length ?? 0) === 0) return null;
  return (
    <ul style={{ listStyle: 'none', padding: 0, margin: 0, display: 'flex', flexWrap: 'wrap', gap: 8 }}>
      {detail!.images.map((image) => (
        <li key={image.id} style={{ display: 'flex', flexDirection: 'column', alignItems: 'center' }}>
          <a href={image.url} target="_blank" rel="noopener noreferrer">
            <Avatar src={image.url} size={64} square alt={t('services.imageOf', { name })} data-testid="detail-image" />
          </a>
          {editable && (
            <IconButton
              icon={TrashIcon}
              size="small"
              variant="invisible"
              aria-label={t('upload.remove')}
              onClick={async () => {
                if (!(await confirm({ message: t('bicycles.removeImageConfirm'), danger: true }))) return;
                try {
                  await removeImage.mutateAsync({ id: serviceId, itemId: row.service_item_id, imageId: image.id });
                  await refresh();
                } catch (e) {
                  toast.error(errorText(t, e));
                }
              }}
            />
          )}
        </li>
      ))}
    </ul>
  );
}

/** Adds an image to a checklist item: a hidden file input, its button, and the upload's progress. */
function DetailImageUpload({ serviceId, row, name, refresh }: { serviceId: number; row: ServiceDetailRow; name: string; refresh: Refresh }) {
  const { t } = useTranslation();
  const toast = useToast();
  const addImage = trpc.services.addDetailImage.useMutation();
  const { upload, uploading, progress } = useImageUpload('service_detail_image');
  const fileInput = useRef<HTMLInputElement>(null);

  const onFile = async (file: File | undefined) => {
    if (!file) return;
    if (!['image/jpeg', 'image/jpg', 'image/png'].includes(file.type)) {
      toast.error(t('upload.onlyImages'));
      return;
    }
    const url = await upload(file);
    if (!url) return;
    try {
      await addImage.mutateAsync({ id: serviceId, itemId: row.service_item_id, url });
      await refresh();
      toast.success(t('services.imageAdded'));
    } catch (e) {
      toast.error(errorText(t, e));
    }
  };

  return (
    <>
      <input
        ref={fileInput}
        type="file"
        accept="image/jpeg,image/png"
        hidden
        aria-label={t('services.addImage', { name })}
        onChange={(e) => {
          const file = e.target.files?.[0];
          e.target.value = '';
          void onFile(file);
        }}
        data-testid="detail-upload"
      />
      <Button size="small" leadingVisual={ImageIcon} onClick={() => fileInput.current?.click()} loading={uploading} aria-label={t('services.addImage', { name })}>
        {uploading ? t('upload.uploading') : t('upload.choose')}
      </Button>
      {progress !== null && (
        <span className="visually-hidden" role="status">
          {t('upload.uploading')}
        </span>
      )}
    </>
  );
}

/** One service item of the checklist: check status, needs-repair flag, notes and images. */
function DetailItem({ serviceId, row, editable }: { serviceId: number; row: ServiceDetailRow; editable: boolean }) {
  const { t, i18n } = useTranslation();
  const utils = trpc.useUtils();
  const detail = row.detail;
  const name = i18n.language === 'sv' ? row.name_sv : row.name_en;
  const refresh = () => utils.services.details.list.invalidate({ id: serviceId });
  const form = useDetailForm(serviceId, row, name, refresh);

  return (
    <li data-testid={`detail-item-${row.service_item_id}`} aria-label={name}>
      <div style={{ display: 'flex', justifyContent: 'space-between', gap: 8, alignItems: 'baseline' }}>
        <strong>{name}</strong>
        {!editable && <CheckStatus value={detail?.check_status ?? null} />}
      </div>
      {row.description && <span style={{ fontSize: 12, color: 'var(--fgColor-muted)' }}>{row.description}</span>}
      {editable ? <DetailFields row={row} name={name} form={form} /> : <DetailSummary detail={detail} />}
      <DetailImages serviceId={serviceId} row={row} name={name} editable={editable} refresh={refresh} />
      {editable && (
        <div style={{ display: 'flex', gap: 8, alignItems: 'center', flexWrap: 'wrap' }}>
          <Button
            variant="primary"
            size="small"
            onClick={() => void form.onSave()}
            loading={form.saving}
            disabled={!form.dirty && detail?.check_status !== undefined && detail?.check_status !== null}
            data-testid="detail-save"
          >
            {t('form.save')}
          </Button>
          <DetailImageUpload serviceId={serviceId} row={row} name={name} refresh={refresh} />
        </div>
      )}
    </li>
  );
}

/** §3 service details: every service item with its check status, needs-repair flag, notes and images. */
function ServiceDetails({ id }: { id: number }) {
  const { t } = useTranslation();
  const access = useAccess(servicesEntity);
  const service = trpc.services.get.useQuery({ id });
  const details = trpc.services.details.list.useQuery({ id });
  const booked = Number(service.data?.status) === SERVICE_STATUS.Booked;
  const editable = booked && access.canTransition;
  return (
    <section style={{ marginTop: 32 }} data-testid="service-details">
      <Heading as="h2" style={{ fontSize: 18, marginBottom: 4 }}>
        {t('services.detailsTitle')}
      </Heading>
      <p style={{ marginTop: 0, color: 'var(--fgColor-muted)', fontSize: 14 }}>
        {t(editable ? 'services.detailsHelp' : booked ? 'services.detailsReadOnly' : 'services.detailsClosed', {
          status: statusText(t, servicesEntity, 'status', service.data?.status),
        })}
      </p>
      {details.data && (
        <Items>
          {(details.data as unknown as ServiceDetailRow[]).map((row) => (
            <DetailItem key={`${row.service_item_id}-${row.detail?.version ?? 0}-${row.detail?.images.length ?? 0}-${editable}`} serviceId={id} row={row} editable={editable} />
          ))}
        </Items>
      )}
    </section>
  );
}

/** /services/:id: the generic detail (a form for admins, read-only for buddies), status steps and details. */
export default function ServicePage() {
  return (
    <ResourceDetailPage
      def={servicesEntity}
      actions={(record) => (
        <>
          <StatusLabel def={servicesEntity} field="status" flow={SERVICE_STATUS_FLOW} value={record.status} />
          <RecordActions def={servicesEntity} record={record} />
        </>
      )}
    >
      {(id) => <ServiceDetails id={id} />}
    </ResourceDetailPage>
  );
}
