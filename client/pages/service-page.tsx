import { Button, FormControl, Heading, Label, Textarea } from '@primer/react';
import { lazy, Suspense, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { SERVICE_CHECK_STATUSES } from '../../shared/entities/service-items.ts';
import { SERVICE_STATUS, SERVICE_STATUS_FLOW, servicesEntity } from '../../shared/entities/services.ts';
import type { ServiceDetailRow } from '../../shared/schemas/services.ts';
import { useUnsavedChangesGuard } from '../components/use-unsaved-guard.ts';
import { useAccess } from '../entity/access.ts';
import { RecordActions } from '../entity/record-actions.tsx';
import { ResourceDetailPage } from '../entity/resource-detail-page.tsx';
import { StatusLabel, statusText } from '../entity/status-label.tsx';
import { errorText, fieldErrorsOf, fieldText } from '../errors.ts';
import { useToast } from '../shell/toasts.tsx';
import { trpc } from '../trpc.ts';

import { Items, SaveBar } from './service-checklist-styles.ts';
import { DetailImages, DetailImageUpload } from './service-detail-images.tsx';
// The photo flow (camera, upload, thumbnails) loads when a service page shows it, not with the page (ADR 043).
const ServicePhotos = lazy(() => import('../components/service-photos.tsx'));

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

/** What the form holds for one item of the checklist. */
interface Answer {
  check_status: 1 | 2 | 3 | null;
  needs_repair: boolean;
  notes: string;
}

const savedAnswer = (row: ServiceDetailRow): Answer => ({
  check_status: row.detail?.check_status ?? null,
  needs_repair: row.detail?.needs_repair ?? false,
  notes: row.detail?.notes ?? '',
});
const sameAnswer = (a: Answer, b: Answer) => a.check_status === b.check_status && a.needs_repair === b.needs_repair && a.notes.trim() === b.notes.trim();
const itemName = (row: ServiceDetailRow, lang: string) => (lang === 'sv' ? row.name_sv : row.name_en);

/**
 * The whole checklist as one form (ADR 043): the answers of every item, and one Save that sends the changed
 * ones together (`services.details.setMany`: all are written or none).
 */
function useChecklistForm(serviceId: number, rows: ServiceDetailRow[]) {
  const { i18n } = useTranslation();
  const toast = useToast();
  const utils = trpc.useUtils();
  const save = trpc.services.details.setMany.useMutation();
  const [answers, setAnswers] = useState<Record<number, Answer>>(() => Object.fromEntries(rows.map((r) => [r.service_item_id, savedAnswer(r)])));
  const [errors, setErrors] = useState<Record<number, string>>({});
  const answerOf = (row: ServiceDetailRow) => answers[row.service_item_id] ?? savedAnswer(row);
  const changed = rows.filter((r) => !sameAnswer(answerOf(r), savedAnswer(r)));
  const answered = rows.filter((r) => answerOf(r).check_status !== null).length;
  const requiredOpen = rows.filter((r) => r.is_required && answerOf(r).check_status === null).map((r) => itemName(r, i18n.language));

  const change = (row: ServiceDetailRow, patch: Partial<Answer>) => {
    setAnswers((all) => ({ ...all, [row.service_item_id]: { ...answerOf(row), ...patch } }));
    if (patch.check_status) setErrors(({ [row.service_item_id]: _gone, ...rest }) => rest);
  };
  // "Needs repair" ticks the repair flag; moving on from it before saving gives the flag back its saved value.
  const chooseCheckStatus = (row: ServiceDetailRow, id: 1 | 2 | 3) =>
    change(
      row,
      id === 1
        ? { check_status: id, needs_repair: true }
        : answerOf(row).check_status === 1
          ? { check_status: id, needs_repair: savedAnswer(row).needs_repair }
          : { check_status: id },
    );

  const onSubmit = async () => {
    const unanswered = changed.filter((r) => answerOf(r).check_status === null);
    if (unanswered.length > 0) {
      setErrors(Object.fromEntries(unanswered.map((r) => [r.service_item_id, 'validation.checkStatusRequired'])));
      document.querySelector<HTMLInputElement>(`input[name="check-${unanswered[0]!.service_item_id}"]`)?.focus();
      return;
    }
    const items = changed.map((r) => {
      const a = answerOf(r);
      return { key: r.service_item_id, check_status: a.check_status as 1 | 2 | 3, needs_repair: a.needs_repair, notes: a.notes.trim() || null };
    });
    try {
      const saved = await save.mutateAsync({ id: serviceId, items });
      utils.services.details.list.setData({ id: serviceId }, saved as never);
      toast.success((t) => t('services.checklistSaved', { count: items.length }));
    } catch (e) {
      // An item's refusal comes back as `items.<i>.<field>`: shown on that item.
      const fields = fieldErrorsOf(e);
      const onItems = Object.entries(fields).flatMap(([path, message]) => {
        const at = /^items\.(\d+)\./.exec(path);
        const row = at ? changed[Number(at[1])] : undefined;
        return row ? [[row.service_item_id, message] as const] : [];
      });
      if (onItems.length > 0) setErrors(Object.fromEntries(onItems));
      toast.error((t) => errorText(t, e));
    }
  };

  return { answerOf, change, chooseCheckStatus, errors, changed, answered, requiredOpen, saving: save.isPending, onSubmit };
}

type ChecklistForm = ReturnType<typeof useChecklistForm>;

/** The editable fields of a checklist item: its check status as big choices, needs repair and notes. */
function DetailFields({ row, name, form }: { row: ServiceDetailRow; name: string; form: ChecklistForm }) {
  const { t } = useTranslation();
  const answer = form.answerOf(row);
  const error = form.errors[row.service_item_id];
  const errorId = `check-error-${row.service_item_id}`;
  return (
    <>
      <fieldset aria-describedby={error ? errorId : undefined} data-testid="check-choices">
        <legend className="visually-hidden">{t('services.checkStatusOf', { name })}</legend>
        {SERVICE_CHECK_STATUSES.map((s) => (
          <label key={s.id} className="choice" data-testid={`check-${row.service_item_id}-${s.id}`}>
            <input
              type="radio"
              name={`check-${row.service_item_id}`}
              value={s.id}
              checked={answer.check_status === s.id}
              onChange={() => form.chooseCheckStatus(row, s.id)}
              aria-invalid={error ? true : undefined}
            />
            <span>{t(`resources.service-items.checkStatuses.${s.key}`)}</span>
          </label>
        ))}
      </fieldset>
      {error && (
        <span id={errorId} role="alert" style={{ color: 'var(--fgColor-danger)', fontSize: 13 }}>
          {fieldText(t, error)}
        </span>
      )}
      <label className="repair">
        <input type="checkbox" checked={answer.needs_repair} onChange={(e) => form.change(row, { needs_repair: e.target.checked })} />
        {t('services.needsRepair')}
      </label>
      <FormControl>
        <FormControl.Label>{t('services.notesOf', { name })}</FormControl.Label>
        <Textarea value={answer.notes} onChange={(e) => form.change(row, { notes: e.target.value })} block rows={2} maxLength={2000} />
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

/** One service item of the checklist: its name (and whether it is required), the answer, and its images. */
function DetailItem({ serviceId, row, form }: { serviceId: number; row: ServiceDetailRow; form: ChecklistForm | null }) {
  const { t, i18n } = useTranslation();
  const utils = trpc.useUtils();
  const detail = row.detail;
  const name = itemName(row, i18n.language);
  const refresh = () => utils.services.details.list.invalidate({ id: serviceId });
  const editable = form !== null;
  const changed = form?.changed.includes(row) ?? false;

  return (
    <li data-testid={`detail-item-${row.service_item_id}`} data-changed={changed || undefined} aria-label={name}>
      <div style={{ display: 'flex', justifyContent: 'space-between', gap: 8, alignItems: 'baseline', flexWrap: 'wrap' }}>
        <strong>
          {name}
          {row.is_required && (
            <>
              {' '}
              <Label variant="attention" data-testid="required-item">
                {t('services.requiredItem')}
              </Label>
            </>
          )}
        </strong>
        {!editable && <CheckStatus value={detail?.check_status ?? null} />}
        {changed && (
          <Label variant="accent" data-testid="item-changed">
            {t('services.unsaved')}
          </Label>
        )}
      </div>
      {row.description && <span style={{ fontSize: 12, color: 'var(--fgColor-muted)' }}>{row.description}</span>}
      {form ? <DetailFields row={row} name={name} form={form} /> : <DetailSummary detail={detail} />}
      <DetailImages serviceId={serviceId} row={row} name={name} editable={editable} refresh={refresh} />
      {editable && (
        <div style={{ display: 'flex', gap: 8, alignItems: 'center', flexWrap: 'wrap' }}>
          <DetailImageUpload serviceId={serviceId} row={row} name={name} refresh={refresh} />
        </div>
      )}
    </li>
  );
}

/** The checklist of a booked service as one form: its items, and one Save bar with what is still open. */
function ChecklistForm({ serviceId, rows }: { serviceId: number; rows: ServiceDetailRow[] }) {
  const { t } = useTranslation();
  const form = useChecklistForm(serviceId, rows);
  useUnsavedChangesGuard(form.changed.length > 0);
  return (
    <form
      aria-labelledby="checklist-title"
      data-testid="checklist-form"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        void form.onSubmit();
      }}
    >
      <Items>
        {rows.map((row) => (
          <DetailItem key={row.service_item_id} serviceId={serviceId} row={row} form={form} />
        ))}
      </Items>
      <SaveBar data-testid="checklist-bar">
        <Button type="submit" variant="primary" loading={form.saving} disabled={form.changed.length === 0} data-testid="checklist-save">
          {form.changed.length > 0 ? t('services.saveChecklistCount', { count: form.changed.length }) : t('services.saveChecklist')}
        </Button>
        <p role="status" data-testid="checklist-progress">
          {t('services.answered', { answered: form.answered, total: rows.length })}
          {form.requiredOpen.length > 0 && <> · {t('services.requiredOpen', { names: form.requiredOpen.join(', ') })}</>}
        </p>
      </SaveBar>
    </form>
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
  const rows = details.data as ServiceDetailRow[] | undefined;
  return (
    <>
      <section style={{ marginTop: 32 }} data-testid="service-details" id="checklist">
        <Heading as="h2" id="checklist-title" style={{ fontSize: 18, marginBottom: 4 }}>
          {t('services.detailsTitle')}
        </Heading>
        <p style={{ marginTop: 0, color: 'var(--fgColor-muted)', fontSize: 14 }}>
          {t(editable ? 'services.detailsHelp' : booked ? 'services.detailsReadOnly' : 'services.detailsClosed', {
            status: statusText(t, servicesEntity, 'status', service.data?.status),
          })}
        </p>
        {/* Two places take pictures (§9: service_detail_image, service_image): each says which is for what. */}
        {editable && (
          <p style={{ marginTop: 0, color: 'var(--fgColor-muted)', fontSize: 14 }} data-testid="detail-images-help">
            {t('services.detailImagesHelp')}
          </p>
        )}
        {rows &&
          (editable ? (
            // Saved answers (their versions and images) reset the form; unsaved ones are kept only until then.
            <ChecklistForm key={rows.map((r) => `${r.service_item_id}.${r.detail?.version ?? 0}.${r.detail?.images.length ?? 0}`).join()} serviceId={id} rows={rows} />
          ) : (
            <Items>
              {rows.map((row) => (
                <DetailItem key={row.service_item_id} serviceId={id} row={row} form={null} />
              ))}
            </Items>
          ))}
      </section>
      {service.data && (
        <Suspense fallback={null}>
          <ServicePhotos serviceId={id} editable={editable} />
        </Suspense>
      )}
    </>
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
