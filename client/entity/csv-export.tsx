import { Button } from '../components/controls.tsx';
import { spriteIcon } from '../components/sprite-icon.tsx';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { csvRecordCounter } from '../../shared/csv.ts';
import { useToast } from '../shell/toasts.tsx';

const DownloadIcon = spriteIcon('download');
import { CSRF_HEADER } from '../../shared/http-headers.ts';

function fileNameOf(disposition: string | null, fallback: string): string {
  return /filename="([^"]+)"/.exec(disposition ?? '')?.[1] ?? fallback;
}

/**
 * Downloads the server's streamed CSV of the current search and filters, counting rows as they
 * arrive so a long export shows progress. The custom header makes it a same-site request only.
 */
export function CsvExportButton({
  name,
  search,
  filters,
}: {
  /** The download's name: an exportable entity's, or `audit` (the change history). */
  name: string;
  search?: string;
  filters: Readonly<Record<string, string | number | boolean | undefined>>;
}) {
  const { t } = useTranslation();
  const toast = useToast();
  const [rows, setRows] = useState<number | null>(null);

  const run = async () => {
    const query = new URLSearchParams();
    if (search) query.set('search', search);
    for (const [key, value] of Object.entries(filters)) if (value !== undefined && value !== '') query.set(key, String(value));
    setRows(0);
    try {
      const res = await fetch(`/export/${name}.csv?${query}`, { headers: { [CSRF_HEADER]: '1' } });
      if (!res.ok || !res.body) throw new Error(String(res.status));
      const reader = res.body.getReader();
      const parts: Uint8Array[] = [];
      const count = csvRecordCounter();
      let lines = 0;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parts.push(value);
        lines = count(value);
        setRows(Math.max(0, lines - 1));
      }
      const url = URL.createObjectURL(new Blob(parts as BlobPart[], { type: 'text/csv' }));
      const link = document.createElement('a');
      link.href = url;
      link.download = fileNameOf(res.headers.get('content-disposition'), `${name}.csv`);
      document.body.appendChild(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
      toast.success(t('export.done', { count: Math.max(0, lines - 1) }));
    } catch {
      toast.error(t('export.failed'));
    } finally {
      setRows(null);
    }
  };

  return (
    <Button leadingVisual={DownloadIcon} onClick={() => void run()} disabled={rows !== null} data-testid="csv-export" aria-live="polite">
      {rows === null ? t('export.csv') : t('export.progress', { count: rows })}
    </Button>
  );
}
