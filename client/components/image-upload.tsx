import { Avatar, Button, ProgressBar } from '@primer/react';
import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { UPLOAD_CONTENT_TYPES, type UploadSignInput } from '../../shared/schemas/uploads.ts';
import { uploadKeyOf } from '../../shared/schemas/uploads.ts';
import { appCodeOf } from '../errors.ts';
import { trpc } from '../trpc.ts';

type UploadKind = UploadSignInput['kind'];

function isAcceptedType(type: string): type is UploadSignInput['contentType'] {
  return (UPLOAD_CONTENT_TYPES as readonly string[]).includes(type);
}

/** What the signed address answered: its HTTP status (0 = no answer) and the API's error code, if any. */
interface PutResult {
  status: number;
  code: string | null;
}

/** PUT the file to the signed address with progress. */
function putFile(url: string, file: File, onProgress: (fraction: number) => void): Promise<PutResult> {
  return new Promise((resolve) => {
    const xhr = new XMLHttpRequest();
    xhr.open('PUT', url);
    xhr.setRequestHeader('content-type', file.type);
    xhr.setRequestHeader('x-amz-acl', 'public-read');
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable) onProgress(event.loaded / event.total);
    };
    xhr.onload = () => {
      let code: string | null = null;
      try {
        code = (JSON.parse(xhr.responseText) as { error?: { message?: string } }).error?.message ?? null;
      } catch {
        code = null;
      }
      resolve({ status: xhr.status, code });
    };
    xhr.onerror = () => resolve({ status: 0, code: null });
    xhr.onabort = () => resolve({ status: 0, code: null });
    xhr.send(file);
  });
}

/** Failures the person can act on get a message (a quota, a file too large); the others end quietly (§8). */
const TOLD_CODES = new Set(['upload_quota', 'upload_quota_bytes', 'upload_too_large']);

/**
 * The §7 signed-upload flow: ask the server for a signed address, PUT the file there with its
 * content type and the public-read header, then hand the access URL to the record.
 * Failures end with the indicator off (§8), quietly unless the person can do something about them
 * (`error`: an upload quota, a file too large); a wrong type is refused before upload.
 */
export function useImageUpload(kind: UploadKind) {
  const { t } = useTranslation();
  const sign = trpc.upload.sign.useMutation();
  const report = trpc.upload.reportFailure.useMutation();
  const [progress, setProgress] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);

  const tell = (code: string | null) => setError(code && TOLD_CODES.has(code) ? t(`errors.${code}`) : null);

  async function upload(file: File): Promise<string | null> {
    setError(null);
    if (!isAcceptedType(file.type)) return null;
    setProgress(0);
    try {
      const signed = await sign.mutateAsync({ kind, contentType: file.type });
      const put = await putFile(signed.url, file, setProgress);
      if (put.status >= 200 && put.status < 300) return signed.accessUrl;
      tell(put.code ?? (put.status === 413 ? 'upload_too_large' : null));
      report.mutate({ kind, status: put.status, reason: 'upload PUT refused' });
      return null;
    } catch (failure) {
      tell(appCodeOf(failure));
      report.mutate({ kind, status: 0, reason: String((failure as Error)?.message ?? 'sign failed').slice(0, 200) });
      return null;
    } finally {
      setProgress(null);
    }
  }

  return { upload, progress, uploading: progress !== null, error };
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
  const { upload, progress, uploading, error } = useImageUpload(kind);
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
      {(typeError || error) && (
        <span role="alert" style={{ color: 'var(--fgColor-danger)', fontSize: 12 }} data-testid={`${testId ?? `upload-${kind}`}-error`}>
          {typeError ? t('upload.onlyImages') : error}
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
  /** The field's validation message (translated), shown under the picture. */
  error?: string;
}

/**
 * One image field: preview, choose (uploads at once), remove. A value that is not one of our uploads (a
 * picture saved before that rule, issue 12 M6) is not loaded: the field says so and offers to remove it.
 */
export function ImageUpload({ kind, value, onChange, label, round, error }: Props) {
  const { t } = useTranslation();
  const ours = Boolean(value && uploadKeyOf(value, kind));
  const message = error ?? (value && !ours ? t('validation.uploadedImage') : undefined);
  return (
    <div style={{ display: 'flex', flexDirection: 'column', gap: 6 }}>
      <div style={{ display: 'flex', alignItems: 'center', gap: 16 }}>
        {ours ? <Avatar src={value!} size={64} square={!round} alt={label} /> : null}
        <div style={{ display: 'flex', gap: 8, alignItems: 'flex-start' }}>
          <ImagePicker kind={kind} label={label} onUploaded={(url) => onChange(url)} />
          {value && (
            <Button type="button" variant={ours ? 'invisible' : 'danger'} onClick={() => onChange(null)} data-testid={`remove-${kind}`}>
              {t('upload.remove')}
            </Button>
          )}
        </div>
      </div>
      {message && (
        <span role="alert" style={{ color: 'var(--fgColor-danger)', fontSize: 12 }} data-testid={`${kind}-field-error`}>
          {message}
        </span>
      )}
    </div>
  );
}

/** A person's profile picture in a form (their own profile, a user's page): round, uploaded as `user_profile_picture`. */
export function ProfilePictureField({ value, onChange, error }: Pick<Props, 'value' | 'onChange' | 'error'>) {
  const { t } = useTranslation();
  return <ImageUpload kind="user_profile_picture" round value={value} onChange={onChange} label={t('profile.picture')} error={error} />;
}
