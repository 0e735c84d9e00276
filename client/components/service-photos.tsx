import { Button, Heading, IconButton } from '@primer/react';
import { DeviceCameraIcon, TrashIcon } from '@primer/octicons-react';
import { useRef } from 'react';
import { useTranslation } from 'react-i18next';
import styled from 'styled-components';
import { errorText } from '../errors.ts';
import { useConfirm } from '../shell/confirm.tsx';
import { useToast } from '../shell/toasts.tsx';
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

/**
 * A service's photos (§9 upload kind `service_image`, ADR 043): thumbnails that open the photo, each removable
 * after a confirmation while the service is booked; on a phone "Take a photo" opens the back camera
 * (`capture="environment"`), elsewhere a file chooser. Loaded lazily by the service page.
 */
export default function ServicePhotos({ serviceId, editable }: { serviceId: number; editable: boolean }) {
  const { t } = useTranslation();
  const toast = useToast();
  const confirm = useConfirm();
  const utils = trpc.useUtils();
  const photos = trpc.services.images.list.useQuery({ id: serviceId });
  const add = trpc.services.images.add.useMutation();
  const remove = trpc.services.images.remove.useMutation();
  const { upload, uploading, error } = useImageUpload('service_image');
  const fileInput = useRef<HTMLInputElement>(null);
  const refresh = () => utils.services.images.list.invalidate({ id: serviceId });

  const onFile = async (file: File | undefined) => {
    if (!file) return;
    if (!['image/jpeg', 'image/png'].includes(file.type)) {
      toast.error(t('upload.onlyImages'));
      return;
    }
    const url = await upload(file);
    if (!url) return;
    try {
      await add.mutateAsync({ id: serviceId, url });
      await refresh();
      toast.success(t('services.photoAdded'));
    } catch (e) {
      toast.error(errorText(t, e));
    }
  };

  const onRemove = async (photoId: number, n: number) => {
    if (!(await confirm({ message: t('services.removePhotoConfirm', { n }), danger: true }))) return;
    try {
      await remove.mutateAsync({ id: serviceId, key: photoId });
      await refresh();
      toast.success(t('services.photoRemoved'));
    } catch (e) {
      toast.error(errorText(t, e));
    }
  };

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
        <Thumbs>
          {list.map((photo, i) => (
            <li key={photo.id} data-testid="service-photo">
              <a href={photo.url} target="_blank" rel="noopener noreferrer">
                <img src={photo.url} alt={t('services.photoOf', { n: i + 1, id: serviceId })} loading="lazy" width={104} height={104} />
              </a>
              {editable && (
                <IconButton
                  icon={TrashIcon}
                  variant="danger"
                  aria-label={t('services.removePhoto', { n: i + 1 })}
                  onClick={() => void onRemove(photo.id, i + 1)}
                  data-testid="photo-remove"
                />
              )}
            </li>
          ))}
        </Thumbs>
      )}
      {editable && (
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
              void onFile(file);
            }}
            data-testid="photo-input"
          />
          <Button
            leadingVisual={DeviceCameraIcon}
            onClick={() => fileInput.current?.click()}
            loading={uploading || add.isPending}
            style={{ minHeight: 44 }}
            data-testid="photo-add"
          >
            {uploading ? t('upload.uploading') : t('services.addPhoto')}
          </Button>
          {error && (
            <p role="alert" style={{ color: 'var(--fgColor-danger)' }}>
              {error}
            </p>
          )}
        </>
      )}
    </section>
  );
}
