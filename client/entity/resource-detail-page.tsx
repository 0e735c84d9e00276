import { Button, Flash, Heading, Link as PrimerLink } from '@primer/react';
import { TrashIcon } from '@primer/octicons-react';
import { lazy, Suspense, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router-dom';
import { newRecordTitle } from './new-record-title.ts';
import { labelOf, writableFields, type EntityDef, type EntityRecord } from '../../shared/entity/define.ts';
import { ENTITIES } from '../../shared/entities/registry.ts';
import { PageSpinner } from '../components/page-spinner.tsx';
import { errorText } from '../errors.ts';
import { useConfirm } from '../shell/confirm.tsx';
import { useToast } from '../shell/toasts.tsx';
import { entityApi, useEntityUtils } from './entity-api.ts';
import { ResourceForm } from './resource-form.tsx';
import { ResourceView } from './resource-view.tsx';
import { useAccess } from './access.ts';
import { WithHistoryTab } from './history-tab.tsx';

// A record's sub-collections (an event's slots) use the list screen; loaded with them, so the list
// screen stays its own chunk for the list routes.
const ResourceListPage = lazy(() => import('./resource-list-page.tsx').then((m) => ({ default: m.ResourceListPage })));
// The record's declared actions (ADR 069), drawn by default; a chunk of their own.
const RecordActions = lazy(() => import('./record-actions.tsx').then((m) => ({ default: m.RecordActions })));

/** Every declared action of the record the viewer may run, as buttons (a custom page may place them elsewhere). */
function declaredActions(def: EntityDef) {
  return (record: EntityRecord) => (
    <Suspense fallback={null}>
      <RecordActions def={def} record={record} />
    </Suspense>
  );
}

/** Sub-collections of an entity (`parent.entity === def.name`), listed on each record's page. */
function childrenOf(def: EntityDef): EntityDef[] {
  return (ENTITIES as readonly EntityDef[]).filter((e) => e.parent?.entity === def.name);
}

/** Values for a new record from the URL (`/services/new?service_date=…&service_slot_id=2`), by field kind. */
function presetFromUrl(def: EntityDef, search: URLSearchParams): Record<string, unknown> {
  const preset: Record<string, unknown> = {};
  for (const [key, field] of writableFields(def)) {
    const raw = search.get(key);
    if (raw === null || raw === '' || raw.length > 200) continue;
    preset[key] = field.kind === 'reference' || field.kind === 'integer' || (field.kind === 'enum' && typeof field.options?.[0] === 'number') ? Number(raw) : raw;
  }
  return preset;
}

/** `/<entity>/:id` (and `/<entity>/new`): the record's form, delete, and any extra sections. */
interface Props {
  def: EntityDef;
  /** Extra sections below the form (images, related lists). */
  children?: (id: number) => ReactNode;
  /** The buttons beside Delete; default: the record's declared actions (`<RecordActions>`, ADR 069). A page that
   * replaces them places the record's actions itself. */
  actions?: (record: EntityRecord) => ReactNode;
  /** Asked before saving changes (the bicycle form's confirm-changes dialog). */
  confirmSave?: () => Promise<boolean>;
}

/** Deletes the record (after a confirmation), then goes back to the list. */
function DeleteButton({ def, record }: { def: EntityDef; record: EntityRecord }) {
  const { t, i18n } = useTranslation();
  const navigate = useNavigate();
  const toast = useToast();
  const confirm = useConfirm();
  const utils = useEntityUtils(def);
  const remove = entityApi(def).delete.useMutation();

  const onDelete = async () => {
    if (!(await confirm({ message: t('form.deleteConfirm', { name: labelOf(def, record, i18n.language) }), danger: true }))) return;
    try {
      await remove.mutateAsync({ id: record.id });
      await utils.list.invalidate();
      toast.success((t) => t(def.messages?.deleted ?? 'form.deleted', { name: labelOf(def, record, i18n.language) }));
      navigate(def.route);
    } catch (error) {
      toast.error((t) => errorText(t, error));
    }
  };

  return (
    <Button variant="danger" leadingVisual={TrashIcon} onClick={() => void onDelete()} data-testid="detail-delete">
      {t('form.delete')}
    </Button>
  );
}

/** The record's sub-collections (an event's slots), each listed with the list screen. */
function ChildLists({ def, id }: { def: EntityDef; id: number }) {
  return childrenOf(def).map((child) => (
    <div key={child.name} style={{ marginTop: 32 }}>
      <Suspense fallback={<PageSpinner />}>
        <ResourceListPage def={child} fixedFilters={{ [child.parent!.field]: id }} headingLevel="h2" />
      </Suspense>
    </div>
  ));
}

export function ResourceDetailPage({ def, children, actions = declaredActions(def), confirmSave }: Props) {
  const { t, i18n } = useTranslation();
  const { id: rawId = '' } = useParams();
  const [search] = useSearchParams();
  const access = useAccess(def);
  const navigate = useNavigate();
  const isNew = rawId === 'new';
  const id = Number(rawId);
  const api = entityApi(def);
  const record = api.get.useQuery({ id }, { enabled: !isNew && Number.isInteger(id) && id > 0 });
  const listPath = def.route;
  const back = (
    <PrimerLink as={Link} to={listPath}>
      ← {t(`resources.${def.name}.name`)}
    </PrimerLink>
  );

  if ((!isNew && !(Number.isInteger(id) && id > 0)) || (isNew && !access.canCreate)) return <Flash variant="danger">{t(isNew ? 'errors.forbidden' : 'errors.not_found')}</Flash>;
  if (!isNew && !record.data) {
    return record.error ? (
      <div>
        {back}
        <Flash variant="danger" role="alert" style={{ marginTop: 16 }}>
          {errorText(t, record.error)}
        </Flash>
      </div>
    ) : (
      <PageSpinner />
    );
  }

  const current = isNew ? null : record.data!;
  return (
    <section>
      {back}
      <div style={{ display: 'flex', justifyContent: 'space-between', alignItems: 'center', flexWrap: 'wrap', gap: 12, margin: '12px 0 20px' }}>
        <Heading as="h1" data-testid="detail-title">
          {current ? labelOf(def, current, i18n.language) : newRecordTitle(t, def.name)}
        </Heading>
        {current && (
          <div style={{ display: 'flex', gap: 8, flexWrap: 'wrap', alignItems: 'center' }}>
            {actions?.(current)}
            {access.canDelete && <DeleteButton def={def} record={current} />}
          </div>
        )}
      </div>
      <WithHistoryTab def={def} record={current}>
        {current && !access.canUpdate ? (
          <ResourceView def={def} record={current} />
        ) : (
          <>
            {/* Printed instead of the form (issue 33): the record's content, not its inputs. */}
            {current && <ResourceView def={def} record={current} print />}
            <div className="no-print">
              <ResourceForm
                key={current ? String(current.id) : 'new'}
                def={def}
                record={current}
                preset={isNew ? presetFromUrl(def, search) : undefined}
                confirmSave={current ? confirmSave : undefined}
                onSaved={(saved) => {
                  if (isNew) navigate(def.detailRoute!.replace(':id', String(saved.id)), { replace: true });
                }}
              />
            </div>
          </>
        )}
        {current && <ChildLists def={def} id={current.id} />}
        {current && children?.(current.id)}
      </WithHistoryTab>
    </section>
  );
}
