import type { TFunction } from 'i18next';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { routerPart } from './entity-api.ts';
import { labelOf, routerKey, statusFieldOf, type ActionDef, type EntityDef, type EntityRecord, type FieldDef } from '../../shared/entity/define.ts';
import { Button, Spinner } from '../components/controls.tsx';
import { formatDate, formatDateTime } from '../../shared/format.ts';
import { appCodeOf, errorText } from '../errors.ts';
import { useConfirm } from '../shell/confirm.tsx';
import { useToast } from '../shell/toasts.tsx';
import { trpc } from '../trpc.ts';
import { actionButtons, type ActionButton, type ButtonFilter, type PlannedButton } from './action-buttons.ts';
import { useAccess } from './access.ts';
import { statusText } from './status-label.tsx';
import { noteOwnVersion } from './own-versions.ts';

/** The conventional test id: `transition-<to>`, `<key>-<variant>`, `<key>`. */
const defaultTestId = (button: ActionButton) => (button.to !== undefined ? `transition-${button.to}` : button.variant ? `${button.key}-${button.variant}` : button.key);

/** How a field's value reads inside a sentence: dates and moments as the app writes them (ADR 045). */
function textValue(field: FieldDef | undefined, value: unknown, lang: string): string {
  if (value === null || value === undefined) return '';
  if (field?.kind === 'date') return formatDate(value, lang);
  if (field?.kind === 'datetime') return formatDateTime(value, lang);
  return String(value);
}

/**
 * What an action's texts interpolate: the record's plain fields (dates written as the app writes dates,
 * "31 Dec 2026"), its `name` (label) and its `status` (translated).
 */
function textValues(t: TFunction, def: EntityDef, record: Record<string, unknown>, lang: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [key, value] of Object.entries(record)) if (value === null || value === undefined || typeof value !== 'object') values[key] = textValue(def.fields[key], value, lang);
  values.name = labelOf(def, record, lang);
  const status = statusFieldOf(def);
  if (status) values.status = statusText(t, def, status[0], record[status[0]]);
  return values;
}

/** The record an action answered with, as its declaration says (`result`). */
function recordOf(action: ActionDef, result: unknown): EntityRecord | null {
  const kind = action.result ?? 'record';
  if (kind === 'none' || kind === 'file' || !result || typeof result !== 'object') return null;
  const record = kind === 'record' ? result : (result as Record<string, unknown>)[kind.recordKey];
  return record && typeof record === 'object' && 'id' in record ? (record as EntityRecord) : null;
}

interface FileAnswer {
  name: string;
  type: string;
  content: string;
}

/** An action's file (a person's data, ADR 076) handed to the browser to save. */
function saveFile(file: FileAnswer | undefined) {
  if (!file || typeof file.content !== 'string') return;
  const url = URL.createObjectURL(new Blob([file.content], { type: file.type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = file.name;
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export type ActionOutcome = { button: ActionButton; record: EntityRecord } & (
  { state: 'pending' } | { state: 'done'; result: unknown; saved: EntityRecord | null } | { state: 'failed'; error: unknown; message: string } | { state: 'queued' }
);

/** Sends an action's input (`<entity>.<action>`); by default the tRPC mutation. */
export type ActionSender = (path: string, input: Record<string, unknown>, record: EntityRecord) => Promise<unknown>;

interface RecordActionsProps extends ButtonFilter {
  def: EntityDef;
  record: EntityRecord;
  size?: 'small' | 'medium';
  /**
   * `buttons`: the actions' labels, as on a record page. `compact`: a row's or a card's — small, the short
   * labels where the texts have them (`short`), and each button's accessible name also names the record.
   */
  variant?: 'buttons' | 'compact';
  /** The buttons' `data-testid` (default `transition-<to>`, `<key>-<variant>`, `<key>`). */
  testId?: (button: ActionButton) => string;
  /** Each run's start, success (with the API's answer: a refund) and failure, for screens that show more than the toast. */
  onResult?: (outcome: ActionOutcome) => void;
  /** Sends the action instead of the tRPC mutation: the Today page's offline queue (ADR 042). */
  send?: ActionSender;
}

/**
 * Runs a record's action: confirm when declared → the action's tRPC mutation → the caches → a toast; a
 * refusal this viewer may override is asked about and run again with the override's input.
 */
function useActionRunner(def: EntityDef, record: EntityRecord, roles: readonly string[], { onResult, send }: Pick<RecordActionsProps, 'onResult' | 'send'>) {
  const { t, i18n } = useTranslation();
  const confirm = useConfirm();
  const toast = useToast();
  const utils = trpc.useUtils();
  const [pending, setPending] = useState<string | null>(null);

  const key = routerKey(def);
  const cache = routerPart<Record<string, { invalidate(input?: unknown): Promise<void>; setData(input: unknown, data: unknown): void }>>(utils, def)!;
  const client = routerPart<Record<string, { mutate(input: unknown): Promise<unknown> }>>(utils.client, def)!;
  const textOf = (button: PlannedButton, text: string, values: Record<string, string>, defaultValue?: string) =>
    t(`resources.${def.name}.actions.${button.key}.${text}`, { context: button.action.textContext?.(record) ?? button.context, replace: values, defaultValue });

  const refresh = (withRecord: boolean) =>
    Promise.all([
      withRecord ? cache.get!.invalidate({ id: record.id }) : undefined,
      cache.list!.invalidate(),
      cache.calendar!.invalidate(),
      ...Object.keys(def.subResources ?? {}).map((sub) => cache[sub]!.invalidate({ id: record.id })),
    ]);

  /** A refusal this viewer may override (ADR 028): asked, then the same action with the override's input. */
  const overridable = (button: PlannedButton, error: unknown) => {
    const override = button.action.override;
    return override && appCodeOf(error) === override.code && override.roles.some((role) => roles.includes(role)) ? override : null;
  };

  const run = async (button: PlannedButton, id: string, extra?: Readonly<Record<string, unknown>>): Promise<void> => {
    const before = textValues(t, def, record, i18n.language);
    if (button.confirm && !extra) {
      const title = textOf(button, 'title', before, '');
      const typedField = button.action.confirmTyped;
      const typed = typedField ? String(record[typedField] ?? '') : undefined;
      if (
        !(await confirm({
          title: title || undefined,
          message: textOf(button, 'confirm', before),
          danger: button.tone === 'danger',
          ...(typed ? { typed } : {}),
        }))
      )
        return;
    }
    setPending(id);
    onResult?.({ state: 'pending', button, record });
    try {
      // Every record action carries the version this screen shows: a stale one is refused, never applied (ADR 069).
      const input = { id: record.id, ...(typeof record.version === 'number' ? { version: record.version } : {}), ...button.input, ...extra };
      const result = send ? await send(`${key}.${button.key}`, input, record) : await client[button.key]!.mutate(input);
      if (button.action.result === 'file') saveFile((result as { file?: FileAnswer } | null)?.file);
      const saved = recordOf(button.action, result);
      if (saved) {
        noteOwnVersion(def.name, record.id, saved.version);
        cache.get!.setData({ id: record.id }, saved);
      }
      await refresh(!saved);
      const after = saved ? textValues(t, def, saved, i18n.language) : before;
      // Idempotent actions (ADR 019) say when the record already was as asked: nothing happened.
      if ((result as { changed?: unknown } | null)?.changed === false) toast.info((t) => t(`resources.${def.name}.actions.unchanged`, { replace: after }));
      else toast.success(() => textOf(button, 'done', after));
      onResult?.({ state: 'done', button, record, result, saved });
    } catch (error) {
      // A screen's own sender kept the action to send later (offline, ADR 042): no toast, no refresh.
      if ((error as { queued?: unknown } | null)?.queued) {
        onResult?.({ state: 'queued', button, record });
        return;
      }
      const override = extra ? null : overridable(button, error);
      if (override) {
        setPending(null);
        if (await confirm({ title: textOf(button, 'overrideTitle', before), message: textOf(button, 'override', before) })) await run(button, id, override.input);
        return;
      }
      const message = errorText(t, error);
      toast.error(() => textOf(button, 'failed', { ...before, reason: message }, message));
      onResult?.({ state: 'failed', button, record, error, message });
      await refresh(true);
    } finally {
      setPending(null);
    }
  };

  return { pending, run };
}

/**
 * Every action and status button of a record (issue 18): confirm when declared → the action's tRPC
 * mutation (`trpc.<entity>.<key>`) → the caches (the record as answered, lists, calendar and sub-resources)
 * → a toast. Texts are `resources.<name>.actions.<key>.{label,short,title,confirm,done,failed}`, with the
 * variant or target status as context (`label_4`); a failure refreshes the record, since a refusal usually
 * means it changed meanwhile (409).
 */
export function RecordActions({ def, record, only, exclude, targets, size, variant = 'buttons', testId = defaultTestId, onResult, send }: RecordActionsProps) {
  const { t, i18n } = useTranslation();
  const access = useAccess(def);
  const { pending, run } = useActionRunner(def, record, access.roles, { onResult, send });
  const buttons = actionButtons(def, record, access.roles, { only, exclude, targets });
  if (buttons.length === 0) return null;

  const compact = variant === 'compact';
  const name = compact ? labelOf(def, record, i18n.language) : '';
  const drawn = buttons.map((button) => {
    const id = testId(button);
    const values = textValues(t, def, record, i18n.language);
    const base = `resources.${def.name}.actions.${button.key}`;
    const label = t(compact ? [`${base}.short`, `${base}.label`] : `${base}.label`, { context: button.action.textContext?.(record) ?? button.context, replace: values });
    return (
      <Button
        key={id}
        size={size ?? (compact ? 'small' : 'medium')}
        variant={button.tone}
        disabled={pending !== null}
        aria-busy={pending === id || undefined}
        aria-label={compact ? t('list.actionOn', { action: label, name }) : undefined}
        data-testid={id}
        onClick={() => void run(button, id)}
      >
        {pending === id && <Spinner />}
        {label}
      </Button>
    );
  });
  return <>{drawn}</>;
}
