import { Avatar, Heading, IconButton, Label } from '@primer/react';
import { TrashIcon } from '@primer/octicons-react';
import { useTranslation } from 'react-i18next';
import styled from 'styled-components';
import { bicyclesEntity } from '../../shared/entities/bicycles.ts';
import { ImagePicker } from '../components/image-upload.tsx';
import { ResourceDetailPage } from '../entity/resource-detail-page.tsx';
import { RecordActions } from '../entity/record-actions.tsx';
import { useConfirm } from '../shell/confirm.tsx';
import { useConfirmedStep, useToastStep } from '../shell/toast-step.ts';
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
  const run = useToastStep();
  const confirmed = useConfirmedStep();
  const utils = trpc.useUtils();
  const images = trpc.bicycles.images.list.useQuery({ id: bicycleId });
  const add = trpc.bicycles.images.add.useMutation();
  const remove = trpc.bicycles.images.remove.useMutation();
  const list = (images.data ?? []).filter((i) => i.kind === kind);
  const title = t(kind === 'defect' ? 'bicycles.defectImages' : 'bicycles.images');

  const attach = (url: string) =>
    run(
      async () => {
        await add.mutateAsync({ id: bicycleId, url, kind });
        await utils.bicycles.images.list.invalidate({ id: bicycleId });
      },
      (t) => t('bicycles.imageAdded'),
    );

  const detach = (imageId: number) =>
    confirmed(
      t('bicycles.removeImageConfirm'),
      async () => {
        await remove.mutateAsync({ id: bicycleId, key: imageId });
        await utils.bicycles.images.list.invalidate({ id: bicycleId });
      },
      (t) => t('bicycles.imageRemoved'),
    );

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
      <ImagePicker kind="bicycle" label={title} onUploaded={async (url) => void (await attach(url))} testId={`upload-${kind}`} />
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
