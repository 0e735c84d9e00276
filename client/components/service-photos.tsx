import { Button, Heading, IconButton } from '@primer/react';
import { DeviceCameraIcon, TrashIcon } from '@primer/octicons-react';
import { useRef } from 'react';
import { useTranslation } from 'react-i18next';
import styled from 'styled-components';
import { errorText } from '../errors.ts';
import { useConfirmedStep, useImageFile } from '../shell/toast-step.ts';
import { trpc } from '../trpc.ts';
import { useImageUpload } from './image-upload.tsx';

const Thumbs = styled.ul`
  list-style: none;
  margin: 0 0 12px;
  padding: 0;
  display: grid;
  grid-template-columns: repeat(auto-fill, minmax(104px, 1fr));
  gap: 10px;
  li {
    position: relative;
  }
  a {
    display: block;
  }
  img {
    display: block;
    width: 100%;
    aspect-ratio: 1;
    object-fit: cover;
    border-radius: 6px;
    border: 1px solid var(--borderColor-default, #d0d7de);
  }
  button {
    position: absolute;
    top: 4px;
    right: 4px;
    width: 44px;
    height: 44px;
    background: var(--bgColor-default, #fff);
  }
`;

/** The photos as thumbnails that open the photo, each with a remove button while the service is editable. */
function PhotoThumbs({
  serviceId,
  photos,
  editable,
  onRemove,
}: {
  serviceId: number;
  photos: { id: number; url: string }[];
  editable: boolean;
  onRemove: (photoId: number, n: number) => void;
}) {
  const { t } = useTranslation();
  return (
    <Thumbs>
      {photos.map((photo, i) => (
        <li key={photo.id} data-testid="service-photo">
          <a href={photo.url} target="_blank" rel="noopener noreferrer">
            <img src={photo.url} alt={t('services.photoOf', { n: i + 1, id: serviceId })} loading="lazy" width={104} height={104} />
          </a>
          {editable && (
            <IconButton
              icon={TrashIcon}
              variant="danger"
              aria-label={t('services.removePhoto', { n: i + 1 })}
              onClick={() => onRemove(photo.id, i + 1)}
              data-testid="photo-remove"
            />
          )}
        </li>
      ))}
    </Thumbs>
  );
}

/** "Take a photo": the back camera on a phone (`capture="environment"`), a file chooser elsewhere; the upload's error. */
function PhotoAdd({ onFile, busy, uploading, error }: { onFile: (file: File | undefined) => void; busy: boolean; uploading: boolean; error: string | null | undefined }) {
  const { t } = useTranslation();
  const fileInput = useRef<HTMLInputElement>(null);
  return (
    <>
      <input
        ref={fileInput}
        type="file"
        accept="image/jpeg,image/png"
        capture="environment"
        className="visually-hidden"
        tabIndex={-1}
        aria-hidden="true"
        onChange={(e) => {
          const file = e.target.files?.[0];
          e.target.value = '';
          onFile(file);
        }}
        data-testid="photo-input"
      />
      <Button leadingVisual={DeviceCameraIcon} onClick={() => fileInput.current?.click()} loading={busy} style={{ minHeight: 44 }} data-testid="photo-add">
        {uploading ? t('upload.uploading') : t('services.addPhoto')}
      </Button>
      {error && (
        <p role="alert" style={{ color: 'var(--fgColor-danger)' }}>
          {error}
        </p>
      )}
    </>
  );
}

/**
 * A service's photos (§9 upload kind `service_image`, ADR 043): thumbnails that open the photo, each removable
 * after a confirmation while the service is booked; on a phone "Take a photo" opens the back camera
 * (`capture="environment"`), elsewhere a file chooser. Loaded lazily by the service page.
 */
export default function ServicePhotos({ serviceId, editable }: { serviceId: number; editable: boolean }) {
  const { t } = useTranslation();
  const confirmed = useConfirmedStep();
  const utils = trpc.useUtils();
  const photos = trpc.services.images.list.useQuery({ id: serviceId });
  const add = trpc.services.images.add.useMutation();
  const remove = trpc.services.images.remove.useMutation();
  const { upload, uploading, error } = useImageUpload('service_image');
  const refresh = () => utils.services.images.list.invalidate({ id: serviceId });

  const onFile = useImageFile(
    upload,
    ['image/jpeg', 'image/png'],
    async (url) => {
      await add.mutateAsync({ id: serviceId, url });
      await refresh();
    },
    (t) => t('services.photoAdded'),
  );

  const onRemove = (photoId: number, n: number) =>
    confirmed(
      t('services.removePhotoConfirm', { n }),
      async () => {
        await remove.mutateAsync({ id: serviceId, key: photoId });
        await refresh();
      },
      (t) => t('services.photoRemoved'),
    );

  const list = photos.data ?? [];
  return (
    <section style={{ marginTop: 32 }} data-testid="service-photos" aria-labelledby="service-photos-title">
      <Heading as="h2" id="service-photos-title" style={{ fontSize: 18, marginBottom: 8 }}>
        {t('services.photosTitle')}
      </Heading>
      {photos.error ? (
        <p role="alert">{errorText(t, photos.error)}</p>
      ) : list.length === 0 ? (
        photos.data && <p style={{ color: 'var(--fgColor-muted)', marginTop: 0 }}>{t('services.noPhotos')}</p>
      ) : (
        <PhotoThumbs serviceId={serviceId} photos={list} editable={editable} onRemove={(id, n) => void onRemove(id, n)} />
      )}
      {editable && (
        <>
          {/* The service's own photos, not a checklist item's (those go with their item): said where both can be added. */}
          <p style={{ marginTop: 0, color: 'var(--fgColor-muted)', fontSize: 14 }} data-testid="photos-help">
            {t('services.photosHelp')}
          </p>
          <PhotoAdd onFile={(file) => void onFile(file)} busy={uploading || add.isPending} uploading={uploading} error={error} />
        </>
      )}
    </section>
  );
}
