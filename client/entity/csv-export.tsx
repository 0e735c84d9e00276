import { Button } from '../components/controls.tsx';
import { spriteIcon } from '../components/sprite-icon.tsx';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useToast } from '../shell/toasts.tsx';

const DownloadIcon = spriteIcon('download');

/**
 * Exports the current search and filters as CSV, with the rows counted as they arrive; the download itself
 * (csv-download.ts) is loaded when the button is pressed.
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
      const { downloadCsv } = await import('./csv-download.ts');
      const count = await downloadCsv(name, query, setRows);
      toast.success((t) => t('export.done', { count }));
    } catch {
      toast.error((t) => t('export.failed'));
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
