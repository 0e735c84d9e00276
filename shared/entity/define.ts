import { z } from 'zod';
import type { AppPath } from '../route-table.ts';
import { MSG } from '../schemas/common.ts';
import type { UPLOAD_KINDS } from '../schemas/auth.ts';

/**
 * One declarative definition per entity (ADR 006). From it come: the zod schemas (record, create,
 * update, list params), the tRPC CRUD router, the upstream REST resource with its SQL table, and the
 * generic list / form screens, labelled by i18n keys `resources.<name>.*`.
 */
export type FieldKind =
  | 'text'
  | 'email'
  | 'phone'
  | 'url'
  | 'image'
  | 'integer'
  | 'decimal'
  | 'money'
  | 'boolean'
  | 'date'
  | 'time'
  | 'datetime'
  | 'enum'
  | 'reference';

export interface FieldDef {
  kind: FieldKind;
  required?: boolean;
  /** Strings: maximum length. Numbers: maximum value. */
  max?: number;
  /** Numbers: minimum value. */
  min?: number;
  multiline?: boolean;
  /** Unique (case-insensitive for text); a duplicate is refused with `<entity>.<field>_exists`. */
  unique?: boolean;
  searchable?: boolean;
  sortable?: boolean;
  /** Offered as a list filter (`?<field>=value`). */
  filter?: boolean;
  /** Shown as a list column. */
  list?: boolean;
  /** Kept by the upstream (counters, computed values): never accepted from input. */
  readOnly?: boolean;
  default?: string | number | boolean | null;
  options?: readonly (string | number)[];
  reference?: { entity: string; label: string };
  currency?: 'sek' | 'gbp';
  uploadKind?: (typeof UPLOAD_KINDS)[number];
  /** Field that must not be shown in lists or forms (kept for the upstream). */
  hidden?: boolean;
}

export interface CrossFieldCheck {
  /** True when the values are acceptable. Missing values are for `required` to report. */
  test: (values: Record<string, unknown>) => boolean;
  message: string;
  path: string;
}

export interface EntityDef<F extends Record<string, FieldDef> = Record<string, FieldDef>> {
  /** Plural resource name: REST path `<name>/`, tRPC router key, i18n `resources.<name>`. */
  name: string;
  /** The §2 route of the list screen; its roles guard every procedure of the entity. */
  route: AppPath;
  /** Detail route, when the entity has its own page (`/companies/:id`). */
  detailRoute?: AppPath;
  table: string;
  fields: F;
  defaultSort: string;
  checks?: readonly CrossFieldCheck[];
  /** Text of a record in choice lists and titles. */
  label: (record: Record<string, unknown>) => string;
  /** Offers a streamed CSV export of the list (same search and filters). */
  exportable?: boolean;
}

export function defineEntity<const F extends Record<string, FieldDef>>(def: EntityDef<F>): EntityDef<F> {
  for (const key of Object.keys(def.fields)) {
    if (!/^[a-z][a-z0-9_]*$/.test(key)) throw new Error(`${def.name}.${key}: field names are snake_case identifiers`);
  }
  return def;
}

export const PAGE_SIZES = [10, 25, 50, 100] as const;
export const DEFAULT_PAGE_SIZE = 25;

export const paginatorSchema = z.object({
  page: z.number().int(),
  page_size: z.number().int(),
  count: z.number().int(),
  total_pages: z.number().int(),
});
export type Paginator = z.infer<typeof paginatorSchema>;

export interface Paged<T> {
  results: T[];
  paginator: Paginator;
}

const TIME = /^([01]\d|2[0-3]):[0-5]\d(:[0-5]\d)?$/;
const DATE = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;

/** The zod type of one field's input value (before required/optional is applied). */
function inputType(field: FieldDef): z.ZodType {
  switch (field.kind) {
    case 'text':
    case 'phone':
      return z.string({ error: MSG.required }).trim().max(field.max ?? 255, { error: MSG.tooLong });
    case 'email':
      return z.string({ error: MSG.required }).trim().max(field.max ?? 254, { error: MSG.tooLong }).pipe(z.union([z.literal(''), z.email({ error: MSG.email })]));
    case 'url':
    case 'image':
      return z.string({ error: MSG.required }).trim().max(field.max ?? 2048, { error: MSG.tooLong }).pipe(z.union([z.literal(''), z.url({ protocol: /^https?$/, error: 'validation.url' })]));
    case 'integer':
    case 'reference': {
      let n = z.coerce.number({ error: 'validation.number' }).int({ error: 'validation.integer' });
      if (field.min !== undefined) n = n.min(field.min, { error: field.min === 0 ? 'validation.notNegative' : `validation.min:${field.min}` });
      if (field.max !== undefined) n = n.max(field.max, { error: `validation.max:${field.max}` });
      if (field.kind === 'reference') n = n.positive({ error: MSG.required });
      return n;
    }
    case 'decimal':
    case 'money': {
      let n = z.coerce.number({ error: 'validation.number' }).finite({ error: 'validation.number' });
      n = n.min(field.min ?? (field.kind === 'money' ? 0 : -1e12), { error: field.min ? `validation.min:${field.min}` : 'validation.notNegative' });
      n = n.max(field.max ?? 1e10, { error: `validation.max:${field.max ?? 1e10}` });
      return n;
    }
    case 'boolean':
      return z.boolean();
    case 'date':
      return z.string({ error: MSG.required }).regex(DATE, { error: 'validation.date' });
    case 'time':
      return z.string({ error: MSG.required }).regex(TIME, { error: 'validation.time' });
    case 'datetime':
      return z.iso.datetime({ offset: true, error: 'validation.datetime' });
    case 'enum': {
      const options = field.options ?? [];
      return z.union(options.map((o) => z.literal(o)) as unknown as [z.ZodLiteral, z.ZodLiteral], { error: 'validation.option' });
    }
  }
}

function isBlank(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}

/** A field's input: required fields reject blanks with 'This field is required'; optional blanks become null. */
export function fieldInputSchema(field: FieldDef): z.ZodType {
  const base = inputType(field);
  if (field.kind === 'boolean') return field.required ? base : base.nullable().optional().transform((v) => v ?? (field.default as boolean | undefined) ?? false);
  return z.preprocess(
    (value) => (isBlank(value) ? null : value),
    field.required ? z.any().refine((v) => v !== null, { error: MSG.required }).pipe(base) : base.nullable().optional().transform((v) => (v === undefined ? null : v)),
  );
}

export function writableFields(def: EntityDef): [string, FieldDef][] {
  return Object.entries(def.fields).filter(([, field]) => !field.readOnly);
}

function withChecks<T extends z.ZodType>(schema: T, def: EntityDef): T {
  if (!def.checks?.length) return schema;
  return schema.superRefine((values, ctx) => {
    for (const check of def.checks ?? []) {
      if (!check.test(values as Record<string, unknown>)) ctx.addIssue({ code: 'custom', message: check.message, path: [check.path] });
    }
  }) as unknown as T;
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

export function recordSchema(def: EntityDef) {
  const shape: Record<string, z.ZodType> = {
    id: z.number(),
    version: z.number(),
    created_at: z.string(),
    updated_at: z.string(),
  };
  for (const [key, field] of Object.entries(def.fields)) shape[key] = z.any().nullable().optional();
  return z.object(shape).passthrough();
}

export function sortableKeys(def: EntityDef): string[] {
  return ['id', ...Object.entries(def.fields).filter(([, f]) => f.sortable).map(([k]) => k)];
}

export function filterKeys(def: EntityDef): string[] {
  return Object.entries(def.fields).filter(([, f]) => f.filter).map(([k]) => k);
}

/** List state: everything the URL carries. */
export function listParamsSchema(def: EntityDef) {
  const orderings = sortableKeys(def).flatMap((k) => [k, `-${k}`]) as [string, ...string[]];
  const filters = Object.fromEntries(filterKeys(def).map((key) => [key, z.union([z.string().max(100), z.number(), z.boolean()]).optional()]));
  return z.object({
    page: z.coerce.number().int().min(1).max(1_000_000).default(1),
    page_size: z.coerce
      .number()
      .int()
      .refine((n) => (PAGE_SIZES as readonly number[]).includes(n), { error: 'validation.pageSize' })
      .default(DEFAULT_PAGE_SIZE),
    search: z.string().trim().max(200).optional(),
    ordering: z.enum(orderings).optional(),
    filters: z.object(filters).strict().default({}),
  });
}

export type ListParams = {
  page: number;
  page_size: number;
  search?: string;
  ordering?: string;
  filters: Record<string, string | number | boolean | undefined>;
};

export type EntityRecord = { id: number; version: number; created_at: string; updated_at: string } & Record<string, unknown>;
