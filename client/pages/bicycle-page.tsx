import { Avatar, Heading, IconButton, Label } from '@primer/react';
import { TrashIcon } from '@primer/octicons-react';
import { useTranslation } from 'react-i18next';
import styled from 'styled-components';
import { bicyclesEntity } from '../../shared/entities/bicycles.ts';
import { ImagePicker } from '../components/image-upload.tsx';
import { ResourceDetailPage } from '../entity/resource-detail-page.tsx';
import { RecordActions } from '../entity/record-actions.tsx';
import { errorText } from '../errors.ts';
import { useConfirm } from '../shell/confirm.tsx';
import { useToast } from '../shell/toasts.tsx';
import { trpc } from '../trpc.ts';
import { BicycleHistory } from '../components/bicycle-history.tsx';

const Gallery = styled.ul`
  list-style: none;
  padding: 0;
  margin: 8px 0 16px;
  display: flex;
  flex-wrap: wrap;
  gap: 12px;
  li {
    display: flex;
    flex-direction: column;
    align-items: center;
    gap: 4px;
  }
`;

function ImageSection({ bicycleId, kind }: { bicycleId: number; kind: 'image' | 'defect' }) {
  const { t } = useTranslation();
  const toast = useToast();
  const confirm = useConfirm();
  const utils = trpc.useUtils();
  const images = trpc.bicycles.images.list.useQuery({ id: bicycleId });
  const add = trpc.bicycles.images.add.useMutation();
  const remove = trpc.bicycles.images.remove.useMutation();
  const list = (images.data ?? []).filter((i) => i.kind === kind);
  const title = t(kind === 'defect' ? 'bicycles.defectImages' : 'bicycles.images');

  const attach = async (url: string) => {
    try {
      await add.mutateAsync({ id: bicycleId, url, kind });
      await utils.bicycles.images.list.invalidate({ id: bicycleId });
      toast.success(t('bicycles.imageAdded'));
    } catch (error) {
      toast.error(errorText(t, error));
    }
  };

  const detach = async (imageId: number) => {
    if (!(await confirm({ message: t('bicycles.removeImageConfirm'), danger: true }))) return;
    try {
      await remove.mutateAsync({ id: bicycleId, key: imageId });
      await utils.bicycles.images.list.invalidate({ id: bicycleId });
      toast.success(t('bicycles.imageRemoved'));
    } catch (error) {
      toast.error(errorText(t, error));
    }
  };

  return (
    <section data-testid={`images-${kind}`} style={{ marginTop: 24 }}>
      <Heading as="h2" style={{ fontSize: 16 }}>
        {title}
      </Heading>
      {list.length === 0 ? (
        <p style={{ color: 'var(--fgColor-muted)' }}>{t('bicycles.noImages')}</p>
      ) : (
        <Gallery>
          {list.map((image) => (
            <li key={image.id}>
              <a href={image.url} target="_blank" rel="noopener noreferrer">
                <Avatar src={image.url} size={96} square alt={title} data-testid="image-preview" />
              </a>
              <IconButton icon={TrashIcon} size="small" variant="invisible" aria-label={t('upload.remove')} onClick={() => void detach(image.id)} />
            </li>
          ))}
        </Gallery>
      )}
      <ImagePicker kind="bicycle" label={title} onUploaded={attach} testId={`upload-${kind}`} />
    </section>
  );
}

/** Bicycle = the generic detail page + confirm-changes dialog, activation and (defect) images (§2). */
export default function BicyclePage() {
  const { t } = useTranslation();
  const confirm = useConfirm();
  return (
    <ResourceDetailPage
      def={bicyclesEntity}
      confirmSave={() => confirm({ title: t('bicycles.confirmTitle'), message: t('bicycles.confirmMessage') })}
      actions={(record) => (
        <>
          <Label variant={record.is_active ? 'success' : 'secondary'} style={{ alignSelf: 'center' }}>
            {t(record.is_active ? 'bicycles.active' : 'bicycles.inactive')}
          </Label>
          <RecordActions def={bicyclesEntity} record={record} testId={() => 'toggle-active'} />
        </>
      )}
    >
      {(id) => (
        <>
          <ImageSection bicycleId={id} kind="image" />
          <ImageSection bicycleId={id} kind="defect" />
          <BicycleHistory bicycleId={id} />
        </>
      )}
    </ResourceDetailPage>
  );
}
