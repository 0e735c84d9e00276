/** A Server-Sent Events reader for tests: the frames of one `GET` stream as they come, read with `next`. */

export interface SseFrame {
  id?: string;
  event: string;
  data: string;
}

export interface SseReader {
  status: number;
  frames: SseFrame[];
  /** The first frame from the reading position on that passes `test`, within `timeoutMs`; moves the position past it. */
  next(test?: (frame: SseFrame) => boolean, timeoutMs?: number): Promise<SseFrame>;
  /** No frame passing `test` arrives within `ms`. */
  quiet(test: (frame: SseFrame) => boolean, ms: number): Promise<boolean>;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  close(): void;
}

export async function openSse(url: string, headers: Record<string, string> = {}): Promise<SseReader> {
  const abort = new AbortController();
  const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: abort.signal });
  const frames: SseFrame[] = [];
  let position = 0;
  let wake: () => void = () => undefined;
  let done = false;
  const ended = (async () => {
    if (!res.body || res.status !== 200) return;
    const decoder = new TextDecoder();
    let pending = '';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        pending += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = pending.indexOf('\n\n')) >= 0) {
          const block = pending.slice(0, end);
          pending = pending.slice(end + 2);
          const frame: SseFrame = { event: 'message', data: '' };
          const data: string[] = [];
          for (const line of block.split('\n')) {
            if (line.startsWith('id:')) frame.id = line.slice(3).trim();
            else if (line.startsWith('event:')) frame.event = line.slice(6).trim();
            else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
          }
          if (data.length === 0) continue;
          frame.data = data.join('\n');
          frames.push(frame);
          wake();
        }
      }
    } catch {
      // aborted by close()
    } finally {
      done = true;
      wake();
    }
  })();
  const find = (test: (frame: SseFrame) => boolean) => {
    for (let i = position; i < frames.length; i++) {
      if (test(frames[i]!)) {
        position = i + 1;
        return frames[i]!;
      }
    }
    return null;
  };
  return {
    status: res.status,
    frames,
    ended,
    async next(test = () => true, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = find(test);
        if (found) return found;
        if (done) throw new Error(`stream ended; frames: ${JSON.stringify(frames)}`);
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no such frame in ${timeoutMs} ms; frames: ${JSON.stringify(frames)}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    },
    async quiet(test, ms) {
      await new Promise((resolve) => setTimeout(resolve, ms));
      return !frames.slice(position).some(test);
    },
    close: () => abort.abort(),
  };
}
