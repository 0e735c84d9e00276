import { Dialog } from '@primer/react';
import { useCallback, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import type { EntityDef, EntityRecord } from '../../shared/entity/define.ts';
import { useConfirm } from '../shell/confirm.tsx';
import { ResourceForm } from './resource-form.tsx';

/**
 * The list screen's create/edit dialog (entities without a detail route); loaded on demand. Closing it
 * with unsaved changes (Escape, ×, Cancel) asks first, as leaving a page does.
 */
export default function RecordDialog({
  def,
  title,
  record,
  fixedValues,
  onClose,
}: {
  def: EntityDef;
  title: string;
  record: EntityRecord | null;
  fixedValues?: Record<string, unknown>;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const confirm = useConfirm();
  const dirty = useRef(false);
  const onDirtyChange = useCallback((value: boolean) => {
    dirty.current = value;
  }, []);
  const close = async () => {
    if (dirty.current && !(await confirm({ title: t('form.unsavedTitle'), message: t('form.unsavedMessage'), danger: true }))) return;
    onClose();
  };
  return (
    <Dialog title={title} onClose={() => void close()} width="large">
      <ResourceForm
        key={record ? record.id : 'new'}
        def={def}
        record={record}
        fixedValues={fixedValues}
        onSaved={onClose}
        onCancel={() => void close()}
        onDirtyChange={onDirtyChange}
      />
    </Dialog>
  );
}
