import { Avatar, Button, IconButton } from '@primer/react';
import { ImageIcon, TrashIcon } from '@primer/octicons-react';
import { useRef } from 'react';
import { useTranslation } from 'react-i18next';
import type { ServiceDetailRow } from '../../shared/schemas/services.ts';
import { useImageUpload } from '../components/image-upload.tsx';
import { useConfirmedStep, useImageFile } from '../shell/toast-step.ts';
import { trpc } from '../trpc.ts';

/** Called after an image is added or removed: the checklist reloads. */
type Refresh = () => Promise<void>;

/** A checklist item's images, each removable (after a confirmation) while the item is editable. */
export function DetailImages({ serviceId, row, name, editable, refresh }: { serviceId: number; row: ServiceDetailRow; name: string; editable: boolean; refresh: Refresh }) {
  const { t } = useTranslation();
  const confirmed = useConfirmedStep();
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
              onClick={() =>
                void confirmed(t('bicycles.removeImageConfirm'), async () => {
                  await removeImage.mutateAsync({ id: serviceId, itemId: row.service_item_id, imageId: image.id });
                  await refresh();
                })
              }
            />
          )}
        </li>
      ))}
    </ul>
  );
}

/** Adds an image to a checklist item: a hidden file input, its button, and the upload's progress. */
export function DetailImageUpload({ serviceId, row, name, refresh }: { serviceId: number; row: ServiceDetailRow; name: string; refresh: Refresh }) {
  const { t } = useTranslation();
  const addImage = trpc.services.addDetailImage.useMutation();
  const { upload, uploading, progress } = useImageUpload('service_detail_image');
  const fileInput = useRef<HTMLInputElement>(null);

  const onFile = useImageFile(
    upload,
    ['image/jpeg', 'image/jpg', 'image/png'],
    async (url) => {
      await addImage.mutateAsync({ id: serviceId, itemId: row.service_item_id, url });
      await refresh();
    },
    (t) => t('services.imageAdded'),
  );

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
      {/* The visible words begin the accessible name (WCAG 2.5.3); the item's name tells the buttons apart. */}
      <Button
        leadingVisual={ImageIcon}
        onClick={() => fileInput.current?.click()}
        loading={uploading}
        aria-label={`${uploading ? t('upload.uploading') : t('upload.choose')}: ${name}`}
      >
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
