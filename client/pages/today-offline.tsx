import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { servicesEntity } from '../../shared/entities/services.ts';
import type { EntityRecord } from '../../shared/entity/define.ts';
import { CSRF_HEADER, IDEMPOTENCY_HEADER } from '../../shared/http-headers.ts';
import { Button } from '../components/controls.tsx';
import { statusText } from '../entity/status-label.tsx';
import { errorText } from '../errors.ts';
import { QUEUE_KEY } from '../offline-storage.ts';

/**
 * The Today page's actions kept through a dead spot (ADR 042), loaded after the page's first paint. Every
 * step a buddy takes on a stop is first written to local storage with an idempotency key, then sent with it;
 * when it cannot be sent (offline, no answer) it stays, shown as pending on its card, and is sent again on
 * reconnect with the same key, so the API does it once however often it arrives. A refusal because the office
 * changed the stop meanwhile (409) stays too, as a conflict on the card, until the buddy discards it or sends
 * it again on the stop as it now is.
 */
export interface QueuedStep {
  key: string;
  /** The signed-in user who took it: another user's steps are never sent under this session. */
  user: string;
  /** `services.transition` */
  path: string;
  input: Record<string, unknown>;
  service: number;
  /** The stop as the buddy saw it when they took the step: what changed is said against it. */
  before: EntityRecord;
  at: string;
  state: 'queued' | 'conflict' | 'failed';
  message?: string;
  /** When the buddy last tapped "Send again" and the API refused it again: the note says it was tried. */
  retriedAt?: string;
}

/**
 * How a refusal is kept (issue 33, ADR 066): only a stale version (`conflict`) means the office changed the
 * stop meanwhile; any other refusal — required check items open, not yet the service's day, a status the
 * step no longer fits — is kept with the API's own reason, said as it is.
 */
const refusedState = (error: RefusedError): QueuedStep['state'] => (error.data?.appCode === 'conflict' ? 'conflict' : 'failed');

/** Thrown to RecordActions when a step is kept to send later: it then shows no error (`queued`). */
const queuedAction = () => Object.assign(new Error('queued'), { queued: true });

/** The fields a conflict compares: what the office may have changed about a stop. */
const COMPARED = ['status', 'service_date', 'service_time', 'service_slot_id_label', 'buddy_id_label', 'address', 'notes'] as const;
const SEND_TIMEOUT_MS = 15_000;
const PROBE_TIMEOUT_MS = 5_000;
const RETRY_EVERY_MS = 10_000;

/**
 * Whether the back office answers. `navigator.onLine` only knows the phone has a network: in a dead spot it
 * often has one that carries nothing (and a page reloaded offline from the worker may say online), so the page
 * also asks the back office's `/healthz`, which the worker never answers.
 */
async function reachable(): Promise<boolean> {
  if (!navigator.onLine) return false;
  try {
    const res = await fetch('/healthz', { cache: 'no-store', credentials: 'omit', signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    return res.ok;
  } catch {
    return false;
  }
}

function read(): QueuedStep[] {
  try {
    const parsed: unknown = JSON.parse(localStorage.getItem(QUEUE_KEY) ?? '[]');
    return Array.isArray(parsed) ? (parsed as QueuedStep[]) : [];
  } catch {
    return [];
  }
}

function write(steps: readonly QueuedStep[]) {
  if (steps.length === 0) localStorage.removeItem(QUEUE_KEY);
  else localStorage.setItem(QUEUE_KEY, JSON.stringify(steps));
}

type RefusedError = { message?: string; data?: { appCode?: string | null; httpStatus?: number } };
type Sent = { kind: 'sent'; data: unknown } | { kind: 'unsent' } | { kind: 'refused'; error: RefusedError };

/** One POST of a tRPC mutation with the step's key; anything but an answer of the procedure counts as unsent. */
async function post(step: QueuedStep): Promise<Sent> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), SEND_TIMEOUT_MS);
  try {
    const res = await fetch(`/trpc/${step.path}`, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json', [CSRF_HEADER]: '1', [IDEMPOTENCY_HEADER]: step.key },
      body: JSON.stringify(step.input),
      signal: abort.signal,
    });
    const body = (await res.json().catch(() => null)) as { result?: { data?: unknown }; error?: Extract<Sent, { kind: 'refused' }>['error'] } | null;
    if (res.ok && body?.result) return { kind: 'sent', data: body.result.data };
    const error = body?.error;
    const status = error?.data?.httpStatus ?? res.status;
    // A 5xx, an unreachable API or an ended session: the step waits for the next try, with the same key.
    // Still running under this key (another tab's send, a retry racing the first): its stored answer comes next time.
    if (!error || status >= 500 || status === 401 || status === 408 || status === 429 || error.data?.appCode === 'idempotency_in_progress') return { kind: 'unsent' };
    return { kind: 'refused', error };
  } catch {
    return { kind: 'unsent' };
  } finally {
    clearTimeout(timer);
  }
}

export interface OfflineQueue {
  steps(): readonly QueuedStep[];
  /** Whether the back office answered the last time it was asked. */
  reachable(): boolean;
  subscribe(listener: () => void): () => void;
  /** RecordActions' sender: keeps the step, sends it; throws queuedAction() when it stays queued. */
  submit(path: string, input: Record<string, unknown>, record: EntityRecord): Promise<unknown>;
  replay(): Promise<void>;
  /**
   * "Send again" on a refused step: the same step on the stop as it now is, with a new key (a new decision).
   * Sent → gone (the day reloads); refused → kept with the API's new reason and the time it was tried;
   * no answer → waiting to be sent, like any step taken offline. Never silent.
   */
  resend(key: string, service: EntityRecord): Promise<void>;
  discard(key: string): void;
  close(): void;
}

/** The user's kept steps (mirrored in storage), whether the back office answers, and who listens to either. */
function stepStore(user: string) {
  const listeners = new Set<() => void>();
  const store = {
    steps: read().filter((s) => s.user === user),
    online: navigator.onLine,
    notify: () => listeners.forEach((listener) => listener()),
    subscribe(listener: () => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    setOnline(value: boolean) {
      if (value === store.online) return;
      store.online = value;
      store.notify();
    },
    save(next: QueuedStep[]) {
      store.steps = next;
      try {
        write([...read().filter((s) => s.user !== user), ...next].filter((s) => s.user === user));
      } catch {
        // Full or refused storage: the step still shows, and is sent while this page stays open.
      }
      store.notify();
    },
    update: (key: string, change: Partial<QueuedStep> | null) =>
      store.save(change ? store.steps.map((s) => (s.key === key ? { ...s, ...change } : s)) : store.steps.filter((s) => s.key !== key)),
  };
  return store;
}

/** Replays now, on the browser's `online` event and every RETRY_EVERY_MS while offline or steps wait; returns the stop. */
function watchConnection(store: ReturnType<typeof stepStore>, replay: () => Promise<void>): () => void {
  const retry = setInterval(() => {
    if (!store.online || store.steps.some((s) => s.state === 'queued')) void replay();
  }, RETRY_EVERY_MS);
  const onOnline = () => void replay();
  const onOffline = () => store.setOnline(false);
  window.addEventListener('online', onOnline);
  window.addEventListener('offline', onOffline);
  void replay();
  return () => {
    clearInterval(retry);
    window.removeEventListener('online', onOnline);
    window.removeEventListener('offline', onOffline);
  };
}

/** A refused step tried again: the same step on the stop as it now is, with a new key (a new decision). */
function stepAgain(old: QueuedStep, service: EntityRecord): QueuedStep {
  const step: QueuedStep = { ...old, key: crypto.randomUUID(), input: { ...old.input, version: service.version }, before: service, at: new Date().toISOString(), state: 'queued' };
  delete step.message;
  delete step.retriedAt;
  return step;
}

/**
 * The queue of `user`; `onSent` runs after steps reached the API (the page reloads the day). Sending is one at
 * a time in this tab, and across tabs under a Web Lock where the browser has them.
 */
export function openOfflineQueue(user: string, onSent: () => void): OfflineQueue {
  const store = stepStore(user);
  const { notify, setOnline, save, update } = store;

  let running: Promise<void> | null = null;
  const exclusive = (run: () => Promise<void>): Promise<void> => (navigator.locks ? navigator.locks.request('bb-offline-queue', run).then(() => undefined) : run());

  async function sendWaiting(): Promise<void> {
    // Another tab may have sent some meanwhile: storage is the truth.
    store.steps = read().filter((s) => s.user === user);
    let sent = false;
    for (const step of store.steps.filter((s) => s.state === 'queued')) {
      const outcome = await post(step);
      setOnline(outcome.kind !== 'unsent');
      if (outcome.kind === 'unsent') break;
      sent = true;
      if (outcome.kind === 'sent') update(step.key, null);
      else update(step.key, { state: refusedState(outcome.error), message: JSON.stringify(outcome.error) });
    }
    notify();
    if (sent) onSent();
  }

  /** Asks whether the back office answers; if it does, sends what waits. */
  const replay = (): Promise<void> => {
    running ??= reachable()
      .then((up) => {
        setOnline(up);
        if (up) return exclusive(sendWaiting);
      })
      .finally(() => (running = null));
    return running;
  };

  const stopWatching = watchConnection(store, replay);

  return {
    steps: () => store.steps,
    reachable: () => store.online,
    subscribe: store.subscribe,
    async submit(path, input, record) {
      const step: QueuedStep = { key: crypto.randomUUID(), user, path, input, service: record.id, before: record, at: new Date().toISOString(), state: 'queued' };
      save([...store.steps.filter((s) => s.service !== record.id), step]);
      // Known to be offline: kept at once (the retry sends it), rather than a "Saving…" that waits for a timeout.
      if (!store.online || !navigator.onLine) throw queuedAction();
      await running;
      const outcome = await post(step);
      setOnline(outcome.kind !== 'unsent');
      if (outcome.kind === 'unsent') throw queuedAction();
      update(step.key, null);
      // Online, a refusal is said as before: the toast and the card's message.
      if (outcome.kind === 'refused') throw outcome.error;
      return outcome.data;
    },
    replay,
    async resend(key, service) {
      const old = store.steps.find((s) => s.key === key);
      if (!old) return;
      const step = stepAgain(old, service);
      save([...store.steps.filter((s) => s.key !== key), step]);
      // Known to be offline: it waits like a step taken offline (the card says so), and the retry sends it.
      if (!store.online || !navigator.onLine) return;
      await running;
      const outcome = await post(step);
      setOnline(outcome.kind !== 'unsent');
      if (outcome.kind === 'unsent') return;
      if (outcome.kind === 'sent') {
        update(step.key, null);
        onSent();
        return;
      }
      update(step.key, { state: refusedState(outcome.error), message: JSON.stringify(outcome.error), retriedAt: new Date().toISOString() });
    },
    discard: (key) => update(key, null),
    close: stopWatching,
  };
}

/** The card's note for its queued step: pending, or refused with what changed and what the buddy may do. */
export function StepNote({ step, service, onDiscard, onRetry }: { step: QueuedStep; service: EntityRecord; onDiscard: () => void; onRetry: () => Promise<void> }) {
  const { t } = useTranslation();
  const [sending, setSending] = useState(false);
  const to = Number(step.input.to);
  const stepName = t(['resources.services.actions.transition.short', 'resources.services.actions.transition.label'], { context: String(to) });
  if (step.state === 'queued')
    return (
      <p className="stop-note" data-testid="stop-pending" data-step-to={to}>
        {t('today.offline.pending', { step: stepName })}
      </p>
    );
  const value = (field: (typeof COMPARED)[number], record: EntityRecord) =>
    field === 'status'
      ? statusText(t, servicesEntity, 'status', record.status)
      : record[field] === null || record[field] === undefined || record[field] === ''
        ? '—'
        : String(record[field]);
  const changes = COMPARED.filter((field) => value(field, step.before) !== value(field, service));
  let reason = '';
  let code = '';
  try {
    const error = JSON.parse(step.message ?? '{}') as { data?: { appCode?: string } };
    code = error.data?.appCode ?? '';
    // The one refusal of the key itself a buddy may meet (a step changed in storage); a key in progress waits instead.
    reason = code === 'idempotency_key_reused' ? t('today.offline.reused') : errorText(t, error);
  } catch {
    reason = '';
  }
  // What the buddy can do about it: the API's reason names the problem, this the way out (issue 33).
  const next = changes.includes('status') ? t('today.offline.next.statusChanged') : t([`today.offline.next.${code}`, 'today.offline.next.other']);
  // The phone's local time, as the offline banner says it.
  const retried = step.retriedAt ? new Date(step.retriedAt).toTimeString().slice(0, 5) : null;
  const retry = () => {
    setSending(true);
    void onRetry().finally(() => setSending(false));
  };
  return (
    <div className="stop-note" role="alert" data-testid="stop-conflict" data-state={step.state}>
      <p data-testid="stop-conflict-reason">
        {step.state === 'conflict' ? t('today.offline.conflict', { step: stepName }) : t('today.offline.failed', { step: stepName, reason })}
      </p>
      {retried && <p data-testid="stop-conflict-retried">{t('today.offline.retried', { time: retried })}</p>}
      <p data-testid="stop-conflict-next">
        {next}
        {code === 'checklist_incomplete' && (
          <>
            {' '}
            <Link to={`/services/${service.id}`} data-testid="stop-conflict-checklist">
              {t('today.offline.openChecklist')}
            </Link>
          </>
        )}
      </p>
      {changes.length > 0 && (
        <ul data-testid="stop-conflict-changes">
          {changes.map((field) => (
            <li key={field}>
              {t(`resources.services.fields.${field.replace(/_label$/, '')}`)}: {value(field, step.before)} → {value(field, service)}
            </li>
          ))}
        </ul>
      )}
      <div className="stop-note-actions">
        <Button size="medium" onClick={onDiscard} data-testid="stop-discard">
          {t('today.offline.discard')}
        </Button>
        {/* On the stop as it now is, when its status still allows the step: a new decision, so a new key. */}
        {!changes.includes('status') && (
          <Button size="medium" onClick={retry} disabled={sending} data-testid="stop-send-again">
            {sending ? t('today.offline.sendingAgain') : t('today.offline.sendAgain')}
          </Button>
        )}
      </div>
    </div>
  );
}
