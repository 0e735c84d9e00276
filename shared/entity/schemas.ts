import { z } from 'zod';
import { pageParams, storableText } from '../schemas/common.ts';
import { MSG } from '../schemas/messages.ts';
import { uploadedImageField } from '../schemas/uploads.ts';
import {
  DEFAULT_PAGE_SIZE,
  MAX_CALENDAR_DAYS,
  PAGE_SIZES,
  SET_MANY_MAX,
  filterKeys,
  isIsoDate,
  isRecordAction,
  isYearInRange,
  sortableKeys,
  subResourceKey,
  writableFields,
  type ActionDef,
  type EntityDef,
  type FieldDef,
  type InputFields,
  type SubResourceDef,
} from './define.ts';

/**
 * The zod schemas an entity definition implies (ADR 006): record, create, update, list and calendar
 * parameters. Apart from define.ts so that screens which only read a definition (lists) do not load zod;
 * the forms and the server import these.
 */
const TIME = /^([01]\d|2[0-3]):[0-5]\d(:[0-5]\d)?$/;
const dateString = () => z.string({ error: MSG.required }).refine(isIsoDate, { error: 'validation.date', abort: true }).refine(isYearInRange, { error: 'validation.dateYears' });

/**
 * The largest magnitude a `numeric(p, 2)` column holds below 10^(p − 2): money is numeric(12,2), decimals
 * keep 12 digits before the point whatever their scale (ADR 020). One more and PostgreSQL refuses the write.
 */
const MONEY_LIMIT = 9_999_999_999.99;
const DECIMAL_LIMIT = 999_999_999_999.99;

/** An integer or a reference id, within the field's bounds and the column's type. */
function wholeNumber(field: FieldDef): z.ZodType {
  let n = z.coerce.number({ error: 'validation.number' }).int({ error: 'validation.integer' });
  if (field.min !== undefined) n = n.min(field.min, { error: field.min === 0 ? 'validation.notNegative' : `validation.min:${field.min}` });
  if (field.max !== undefined) n = n.max(field.max, { error: `validation.max:${field.max}` });
  // Within the column's type (integer, or a bigint id), so no value reaches SQL only to overflow there.
  else if (field.kind === 'integer') n = n.max(2_147_483_647, { error: 'validation.max:2147483647' });
  if (field.kind === 'integer' && field.min === undefined) n = n.min(-2_147_483_648, { error: 'validation.min:-2147483648' });
  if (field.kind === 'reference') n = n.positive({ error: MSG.required }).max(Number.MAX_SAFE_INTEGER, { error: 'validation.option' });
  return n;
}

/** A decimal or an amount of money, within the field's bounds and what its numeric column holds. */
function decimalNumber(field: FieldDef): z.ZodType {
  const limit = field.kind === 'money' ? MONEY_LIMIT : DECIMAL_LIMIT;
  const min = Math.max(field.min ?? (field.kind === 'money' ? 0 : -limit), -limit);
  const max = Math.min(field.max ?? limit, limit);
  let n = z.coerce.number({ error: 'validation.number' }).finite({ error: 'validation.number' });
  n = n.min(min, { error: min === 0 ? 'validation.notNegative' : `validation.min:${min}` });
  n = n.max(max, { error: `validation.max:${max}` });
  return n;
}

/** The zod type of one field's input value (before required/optional is applied). */
function inputType(field: FieldDef): z.ZodType {
  switch (field.kind) {
    case 'text':
    case 'phone':
      return storableText(field.max ?? 255);
    case 'email':
      return storableText(field.max ?? 254).pipe(z.union([z.literal(''), z.email({ error: MSG.email })], { error: MSG.email }));
    case 'image':
      // A file our upload endpoint stored (issue 12 M6), not any address: the API also checks its origin.
      if (field.uploadKind) return storableText(2048).pipe(z.union([z.literal(''), uploadedImageField(field.uploadKind)], { error: 'validation.uploadedImage' }));
      return storableText(field.max ?? 2048).pipe(z.union([z.literal(''), z.url({ protocol: /^https?$/, error: 'validation.url' })], { error: 'validation.url' }));
    case 'url':
      return storableText(field.max ?? 2048).pipe(z.union([z.literal(''), z.url({ protocol: /^https?$/, error: 'validation.url' })], { error: 'validation.url' }));
    case 'integer':
    case 'reference':
      return wholeNumber(field);
    case 'decimal':
    case 'money':
      return decimalNumber(field);
    case 'boolean':
      return z.boolean({ error: 'validation.option' });
    case 'date':
      return dateString();
    case 'time':
      return z.string({ error: MSG.required }).regex(TIME, { error: 'validation.time' });
    case 'datetime':
      return z.iso.datetime({ offset: true, error: 'validation.datetime' }).refine((v) => isYearInRange(v) && !Number.isNaN(Date.parse(v)), { error: 'validation.dateYears' });
    case 'enum': {
      const options = field.options ?? [];
      return z.union(options.map((o) => z.literal(o)) as [z.ZodLiteral, z.ZodLiteral], { error: 'validation.option' });
    }
  }
}

function isBlank(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}

/** A field's input: required fields reject blanks with 'This field is required'; optional blanks become null. */
export function fieldInputSchema(field: FieldDef): z.ZodType {
  if (field.many !== undefined) {
    const { many, required, ...one } = field;
    const list = z.array(fieldInputSchema({ ...one, required: true })).max(many);
    return required ? list.min(1, { error: field.requiredMessage ?? MSG.required }) : list.nullish().transform((v) => v ?? []);
  }
  const base = inputType(field);
  if (field.kind === 'boolean')
    return field.required
      ? base
      : base
          .nullable()
          .optional()
          .transform((v) => v ?? (field.default as boolean | undefined) ?? false);
  return z.preprocess(
    (value) => (isBlank(value) ? null : value),
    field.required
      ? z
          .any()
          .refine((v) => v !== null, { error: field.requiredMessage ?? MSG.required })
          .pipe(base)
      : base
          .nullable()
          .optional()
          .transform((v) => (v === undefined ? null : v)),
  );
}

function withChecks<T extends z.ZodType>(schema: T, def: EntityDef): T {
  if (!def.checks?.length) return schema;
  return schema.superRefine((values, ctx) => {
    for (const check of def.checks ?? []) {
      if (!check.test(values as Record<string, unknown>)) ctx.addIssue({ code: 'custom', message: check.message, path: [check.path] });
    }
  }) as T;
}

export function createSchema(def: EntityDef) {
  const shape = Object.fromEntries(writableFields(def).map(([key, field]) => [key, fieldInputSchema(field)]));
  return withChecks(z.object(shape), def);
}

/** An update is the whole record plus the version it was based on (stale versions get 409). */
export function updateSchema(def: EntityDef) {
  const shape = Object.fromEntries(writableFields(def).map(([key, field]) => [key, fieldInputSchema(field)]));
  return z.object({ id: z.number().int().positive(), version: z.number().int().positive(), data: withChecks(z.object(shape), def) });
}

/** The input of a reference's choice list (define.ts: OPTIONS_LIMIT). */
/**
 * A choice list's input: the search, the record already chosen (always included), and `activeOnly` for choosing
 * a new value (a form), which leaves out records the entity's `activeField` marks inactive (ADR 041); filters
 * and calendars ask without it, since old records still have inactive values.
 */
export const optionsInput = z.object({
  search: storableText(200).optional(),
  include: z.number().int().positive().max(Number.MAX_SAFE_INTEGER).optional(),
  activeOnly: z.boolean().optional(),
});

/** List state: everything the URL carries. */
export function listParamsSchema(def: EntityDef) {
  const orderings = sortableKeys(def).flatMap((k) => [k, `-${k}`]) as [string, ...string[]];
  const filters = Object.fromEntries(filterKeys(def).map((key) => [key, z.union([z.string().max(100), z.number(), z.boolean()]).optional()]));
  return z.object({
    ...pageParams(PAGE_SIZES, DEFAULT_PAGE_SIZE),
    search: storableText(200).optional(),
    ordering: z.enum(orderings).optional(),
    after: z
      .string()
      .max(200)
      .regex(/^[\w-]+$/, { error: 'validation.option' })
      .optional(),
    filters: z.object(filters).strict().default({}),
  });
}

export function calendarParamsSchema(def: EntityDef) {
  const filters = Object.fromEntries(filterKeys(def).map((key) => [key, z.union([z.string().max(100), z.number(), z.boolean()]).optional()]));
  return z
    .object({
      from: dateString(),
      to: dateString(),
      filters: z.object(filters).strict().default({}),
    })
    .refine((v) => v.from <= v.to && (Date.parse(v.to) - Date.parse(v.from)) / 86_400_000 <= MAX_CALENDAR_DAYS, { error: 'validation.dateRange', path: ['to'] });
}

// ---- Actions and sub-resources (ADR 032) ----

/** A record's id in an input. */
export const recordIdSchema = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);

/** The object that declared input fields describe, checked as the entity's own fields are. */
export function inputFieldsSchema(fields: InputFields = {}) {
  return z.object(Object.fromEntries(Object.entries(fields).map(([key, field]) => [key, fieldInputSchema(field)])));
}

/** An action's input: `{id, version?, ...input}` on a record, `{...input}` on the collection. */
export function actionInputSchema(action: ActionDef) {
  const input = inputFieldsSchema(action.input);
  return isRecordAction(action)
    ? input.extend({
        id: recordIdSchema,
        version: z
          .number()
          .int()
          .positive()
          .max(2 ** 31)
          .optional(),
      })
    : input;
}

/** Reading a sub-resource: the record's id and, when paged, the page. */
export function subResourceListSchema(sub: SubResourceDef) {
  const id = z.object({ id: recordIdSchema });
  if (!sub.paged) return id;
  return id.extend({
    page: z.coerce.number().int().min(1).max(1_000_000).optional(),
    page_size: z.coerce
      .number()
      .int()
      .refine((n) => (PAGE_SIZES as readonly number[]).includes(n), { error: 'validation.pageSize' })
      .optional(),
  });
}

/** The key of a sub-resource's item in an input (`PUT`/`DELETE <path>/:key/`): as its field, else an id. */
export function subResourceKeySchema(sub: SubResourceDef): z.ZodType<number | string> {
  const field = sub.item[subResourceKey(sub)];
  if (field && field.kind !== 'reference' && field.kind !== 'integer') return storableText(field.max ?? 255).pipe(z.string().min(1));
  return recordIdSchema;
}

/**
 * The body of a sub-resource's `setMany` (ADR 043): `{items: [{key, ...set}]}`, one to SET_MANY_MAX items, each
 * key once; each item is checked as `set` checks one, and an item's errors come back as `items.<i>.<field>`.
 */
export function subResourceSetManySchema(sub: SubResourceDef) {
  const item = inputFieldsSchema(sub.set).extend({ key: subResourceKeySchema(sub) });
  return z.object({
    items: z
      .array(item)
      .min(1, { error: 'validation.required' })
      .max(SET_MANY_MAX, { error: `validation.maxItems:${SET_MANY_MAX}` })
      .refine((items) => new Set(items.map((i) => String(i.key))).size === items.length, { error: 'validation.duplicateKeys' }),
  });
}
