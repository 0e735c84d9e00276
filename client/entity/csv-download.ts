import { csvRecordCounter } from '../../shared/csv.ts';
import { CSRF_HEADER } from '../../shared/http-headers.ts';

function fileNameOf(disposition: string | null, fallback: string): string {
  return /filename="([^"]+)"/.exec(disposition ?? '')?.[1] ?? fallback;
}

/**
 * Downloads the server's streamed CSV at `/export/<name>.csv?<query>`, counting records as they arrive
 * (`onRows`) so a long export shows progress, then hands the file to the browser. Answers the number of rows.
 * Loaded when an export starts, not with the list (ADR 024). The custom header makes it a same-site request only.
 */
export async function downloadCsv(name: string, query: URLSearchParams, onRows: (rows: number) => void): Promise<number> {
  const res = await fetch(`/export/${name}.csv?${query}`, { headers: { [CSRF_HEADER]: '1' } });
  if (!res.ok || !res.body) throw new Error(String(res.status));
  const reader = res.body.getReader();
  const parts: Uint8Array[] = [];
  const count = csvRecordCounter();
  let rows = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    rows = Math.max(0, count(value) - 1);
    onRows(rows);
  }
  const url = URL.createObjectURL(new Blob(parts as BlobPart[], { type: 'text/csv' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = fileNameOf(res.headers.get('content-disposition'), `${name}.csv`);
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
  return rows;
}
