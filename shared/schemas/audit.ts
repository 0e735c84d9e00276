import { z } from 'zod';
import { isIsoDate, isYearInRange, type Paginator } from '../entity/define.ts';
import { idField, pageParams } from './common.ts';

/** Page sizes of the change history's lists (a record's History tab, the Activity page). */
export const AUDIT_PAGE_SIZES = [10, 25, 50, 100] as const;
export const AUDIT_PAGE_SIZE = 25;

/** The values of the account events' filter (ADR 065). */
export const ACCOUNT_EVENT_FILTER = ['shown', 'hidden', 'only'] as const;
export type AccountEventFilter = (typeof ACCOUNT_EVENT_FILTER)[number];

const day = z
  .string()
  .refine(isIsoDate, { error: 'validation.date' })
  .refine((v) => isYearInRange(v), { error: 'validation.dateYears' });

/**
 * The filters of the change history (ADR 036): one entity (and one of its records), one author, one
 * action, and an inclusive day range (UTC days) of when the change was made. Shared by the API's list and
 * export, the back office's procedure and its CSV download.
 */
export const auditFilters = z.object({
  entity: z
    .string()
    .max(64)
    .regex(/^[a-z][a-z0-9-]*$/, { error: 'validation.option' })
    .optional(),
  record_id: idField().optional(),
  user_id: idField().optional(),
  action: z
    .string()
    .max(64)
    .regex(/^[a-zA-Z][a-zA-Z0-9_-]*$/, { error: 'validation.option' })
    .optional(),
  from: day.optional(),
  to: day.optional(),
  /**
   * The account events (sign-ins, failed sign-ins, sign-outs, resets: ADR 065): `shown` among the changes (the
   * default of the API), `hidden` (the screens' default: sign-ins would flood them), or `only` them. A filter
   * on one account event's action shows it whatever this says.
   */
  account_events: z.enum(ACCOUNT_EVENT_FILTER).optional(),
});

export const auditListParams = auditFilters.extend(pageParams(AUDIT_PAGE_SIZES, AUDIT_PAGE_SIZE));

export type AuditFilters = z.output<typeof auditFilters>;
export type AuditListParams = z.input<typeof auditListParams>;

/** The filter keys, in the order the export's query string takes them. */
export const AUDIT_FILTER_KEYS = ['entity', 'record_id', 'user_id', 'action', 'from', 'to', 'account_events'] as const;

/** One change as the history lists it: who (and their name now), when, from where, and `{field: [before, after]}`. */
/** An entry as the chain stores and hashes it (ADR 035): who, when, from where, which request, what changed. */
export interface StoredAuditEntry {
  id: number;
  at: string;
  user_id: number | null;
  role: string | null;
  address: string | null;
  request_id: string | null;
  entity: string;
  record_id: number | null;
  action: string;
  /** `{field: [before, after]}` of the fields that changed. */
  changes: Record<string, [unknown, unknown]>;
}

export interface AuditRow extends StoredAuditEntry {
  user_name: string | null;
  /** A reference field's before and after as the labels of the records they point at now (null: none, or gone). */
  labels?: Record<string, [string | null, string | null]>;
  /** The record's name as it is now (a user's full name, a service's label); absent when it is gone or has none. */
  record_label?: string;
  /**
   * The labels of the references inside a change's items or an export's query (a checklist row's service item,
   * a filter's buddy), as read now: `{"<key>.<field>": {"<id>": label}}` (ADR 065).
   */
  refs?: Record<string, Record<string, string>>;
}

export interface AuditPage {
  results: AuditRow[];
  paginator: Paginator;
}

/** The CSV export's columns, in order. */
export const AUDIT_CSV_COLUMNS = ['id', 'at', 'user_id', 'user_name', 'role', 'address', 'request_id', 'entity', 'record_id', 'action', 'changes'] as const;
