import { pipeline, Transform, type Readable } from 'node:stream';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

type Gc = (options?: { type?: 'minor' | 'major'; execution?: 'sync' | 'async' }) => void;

let gc: Gc | null | undefined;

/** V8's own `gc()`, exposed once for this process (the flag only adds the function; nothing else changes). */
function collector(): Gc | null {
  if (gc !== undefined) return gc;
  try {
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as Gc;
  } catch {
    gc = null;
  }
  return gc;
}

/**
 * Keeps a long pass-through stream's memory flat (issue 22, ADR 047). Every chunk read from a socket is
 * a new buffer outside the JavaScript heap; V8 frees them only with the small objects that hold them, and
 * it starts a collection for outside memory only after 64 MB of it have piled up. A CSV export of a
 * million rows (220 MB) through the back office grew its RSS by 60–80 MB that way. A minor collection (a
 * scavenge of the young objects, about a millisecond) every `everyBytes` passed returns the buffers
 * already written: the growth stays at ~25 MB whatever the size.
 */
export function scavengingWhileStreaming(stream: Readable, everyBytes = 8 * 1024 * 1024): Readable {
  const collect = collector();
  if (!collect) return stream;
  let since = 0;
  const through = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      since += chunk.length;
      if (since >= everyBytes) {
        since = 0;
        collect({ type: 'minor' });
      }
      done(null, chunk);
    },
  });
  // An error or an abort on either side ends both (the reply sees the error as it would the source's).
  pipeline(stream, through, () => undefined);
  return through;
}
