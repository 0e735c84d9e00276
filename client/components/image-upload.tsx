import { Avatar, Button, ProgressBar } from '@primer/react';
import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { UPLOAD_CONTENT_TYPES, type UploadSignInput } from '../../shared/schemas/auth.ts';
import { trpc } from '../trpc.ts';

type UploadKind = UploadSignInput['kind'];

function isAcceptedType(type: string): type is UploadSignInput['contentType'] {
  return (UPLOAD_CONTENT_TYPES as readonly string[]).includes(type);
}

/** PUT the file to the signed address with progress; resolves the HTTP status (0 = no answer). */
function putFile(url: string, file: File, onProgress: (fraction: number) => void): Promise<number> {
  return new Promise((resolve) => {
    const xhr = new XMLHttpRequest();
    xhr.open('PUT', url);
    xhr.setRequestHeader('content-type', file.type);
    xhr.setRequestHeader('x-amz-acl', 'public-read');
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable) onProgress(event.loaded / event.total);
    };
    xhr.onload = () => resolve(xhr.status);
    xhr.onerror = () => resolve(0);
    xhr.onabort = () => resolve(0);
    xhr.send(file);
  });
}

/**
 * The §7 signed-upload flow: ask the server for a signed address, PUT the file there with its
 * content type and the public-read header, then hand the access URL to the record.
 * Failures end quietly with the indicator off (§8); a wrong type is refused before upload.
 */
export function useImageUpload(kind: UploadKind) {
  const sign = trpc.upload.sign.useMutation();
  const report = trpc.upload.reportFailure.useMutation();
  const [progress, setProgress] = useState<number | null>(null);

  async function upload(file: File): Promise<string | null> {
    if (!isAcceptedType(file.type)) return null;
    setProgress(0);
    try {
      const signed = await sign.mutateAsync({ kind, contentType: file.type });
      const status = await putFile(signed.url, file, setProgress);
      if (status >= 200 && status < 300) return signed.accessUrl;
      report.mutate({ kind, status, reason: 'upload PUT refused' });
      return null;
    } catch (error) {
      report.mutate({ kind, status: 0, reason: String((error as Error)?.message ?? 'sign failed').slice(0, 200) });
      return null;
    } finally {
      setProgress(null);
    }
  }

  return { upload, progress, uploading: progress !== null };
}

interface PickerProps {
  kind: UploadKind;
  /** Names the file input for assistive technology. */
  label: string;
  /** Gets the access URL of a stored file. */
  onUploaded: (url: string) => void | Promise<void>;
  disabled?: boolean;
  testId?: string;
}

/**
 * A translated "Choose image" button over a hidden file input (the browser's own input would speak the
 * browser's language), with upload progress and the JPEG/PNG check (§5, §9).
 */
export function ImagePicker({ kind, label, onUploaded, disabled, testId }: PickerProps) {
  const { t } = useTranslation();
  const input = useRef<HTMLInputElement>(null);
  const { upload, progress, uploading } = useImageUpload(kind);
  const [typeError, setTypeError] = useState(false);
  return (
    <div style={{ display: 'flex', flexDirection: 'column', gap: 6 }}>
      <input
        ref={input}
        type="file"
        accept={UPLOAD_CONTENT_TYPES.join(',')}
        hidden
        aria-label={label}
        data-testid={testId ?? `upload-${kind}`}
        onChange={async (event) => {
          const file = event.target.files?.[0];
          event.target.value = '';
          if (!file) return;
          setTypeError(!isAcceptedType(file.type));
          const url = await upload(file);
          if (url) await onUploaded(url);
        }}
      />
      <Button type="button" onClick={() => input.current?.click()} loading={uploading} disabled={disabled} aria-label={`${t('upload.choose')}: ${label}`}>
        {uploading ? t('upload.uploading') : t('upload.choose')}
      </Button>
      {progress !== null && <ProgressBar progress={Math.round(progress * 100)} aria-label={t('upload.uploading')} style={{ width: 160 }} />}
      {typeError && (
        <span role="alert" style={{ color: 'var(--fgColor-danger)', fontSize: 12 }}>
          {t('upload.onlyImages')}
        </span>
      )}
    </div>
  );
}

interface Props {
  kind: UploadKind;
  value: string | null | undefined;
  onChange: (url: string | null) => void;
  label: string;
  round?: boolean;
}

/** One image field: preview, choose (uploads at once), remove. */
export function ImageUpload({ kind, value, onChange, label, round }: Props) {
  const { t } = useTranslation();
  return (
    <div style={{ display: 'flex', alignItems: 'center', gap: 16 }}>
      {value ? <Avatar src={value} size={64} square={!round} alt={label} /> : null}
      <div style={{ display: 'flex', gap: 8, alignItems: 'flex-start' }}>
        <ImagePicker kind={kind} label={label} onUploaded={(url) => onChange(url)} />
        {value && (
          <Button type="button" variant="invisible" onClick={() => onChange(null)}>
            {t('upload.remove')}
          </Button>
        )}
      </div>
    </div>
  );
}
