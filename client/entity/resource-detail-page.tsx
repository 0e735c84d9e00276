import { Button, Flash, Heading, Link as PrimerLink } from '@primer/react';
import { TrashIcon } from '@primer/octicons-react';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useParams } from 'react-router-dom';
import type { EntityDef, EntityRecord } from '../../shared/entity/define.ts';
import { PageSpinner } from '../components/page-spinner.tsx';
import { errorText } from '../errors.ts';
import { useConfirm } from '../shell/confirm.tsx';
import { useToast } from '../shell/toasts.tsx';
import { entityApi, useEntityUtils } from './entity-api.ts';
import { ResourceForm } from './resource-form.tsx';

/** `/<entity>/:id` (and `/<entity>/new`): the record's form, delete, and any extra sections. */
interface Props {
  def: EntityDef;
  /** Extra sections below the form (images, related lists). */
  children?: (id: number) => ReactNode;
  /** Extra buttons beside Delete (activate, deactivate). */
  actions?: (record: EntityRecord) => ReactNode;
  /** Asked before saving changes (the bicycle form's confirm-changes dialog). */
  confirmSave?: () => Promise<boolean>;
}

export function ResourceDetailPage({ def, children, actions, confirmSave }: Props) {
  const { t } = useTranslation();
  const { id: rawId = '' } = useParams();
  const navigate = useNavigate();
  const toast = useToast();
  const confirm = useConfirm();
  const isNew = rawId === 'new';
  const id = Number(rawId);
  const api = entityApi(def);
  const utils = useEntityUtils(def);
  const record = api.get.useQuery({ id }, { enabled: !isNew && Number.isInteger(id) && id > 0 });
  const remove = api.delete.useMutation();
  const listPath = def.route;
  const back = (
    <PrimerLink as={Link} to={listPath}>
      ← {t(`resources.${def.name}.name`)}
    </PrimerLink>
  );

  if (!isNew && !(Number.isInteger(id) && id > 0)) return <Flash variant="danger">{t('errors.not_found')}</Flash>;
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
  const onDelete = async () => {
    if (!current) return;
    if (!(await confirm({ message: t('form.deleteConfirm', { name: def.label(current) }), danger: true }))) return;
    try {
      await remove.mutateAsync({ id: current.id });
      await utils.list.invalidate();
      toast.success(t('form.deleted', { name: def.label(current) }));
      navigate(listPath);
    } catch (error) {
      toast.error(errorText(t, error));
    }
  };

  return (
    <section>
      {back}
      <div style={{ display: 'flex', justifyContent: 'space-between', alignItems: 'center', margin: '12px 0 20px' }}>
        <Heading as="h1" data-testid="detail-title">
          {current ? def.label(current) : t('list.new', { name: t(`resources.${def.name}.one`) })}
        </Heading>
        {current && (
          <div style={{ display: 'flex', gap: 8 }}>
            {actions?.(current)}
            <Button variant="danger" leadingVisual={TrashIcon} onClick={() => void onDelete()} data-testid="detail-delete">
              {t('form.delete')}
            </Button>
          </div>
        )}
      </div>
      <ResourceForm
        key={current ? `${current.id}-${current.version}` : 'new'}
        def={def}
        record={current}
        confirmSave={current ? confirmSave : undefined}
        onSaved={(saved) => {
          if (isNew) navigate(def.detailRoute!.replace(':id', String(saved.id)), { replace: true });
        }}
      />
      {current && children?.(current.id)}
    </section>
  );
}
