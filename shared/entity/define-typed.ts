import type { StatusFlow } from './define-fields.ts';

// ---- Types derived from declarations (the typed tRPC router; zod builds the same shapes at run time) ----

/** The TypeScript value of a field as input: a list of them with `many`. */
export type FieldValue<D> = D extends { many: number } ? OneValue<D>[] : OneValue<D>;
type OneValue<D> = D extends { kind: 'enum'; options: readonly (infer O)[] }
  ? O
  : D extends { kind: 'boolean' }
    ? boolean
    : D extends { kind: 'integer' | 'reference' | 'decimal' | 'money' }
      ? number
      : string;

type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** The input object that InputFields describe: required fields required, the others optional (null clears). */
export type InputOf<I> = Simplify<
  { [K in keyof I as I[K] extends { required: true } ? K : never]: FieldValue<I[K]> } & {
    [K in keyof I as I[K] extends { required: true } ? never : K]?: FieldValue<I[K]> | null;
  }
>;

/**
 * A sub-resource item as read: its declared fields, null unless declared `required` (always present), and
 * beside each reference its `<field>_label` as records have them.
 */
export type ItemOf<I> = Simplify<
  { [K in keyof I]: I[K] extends { required: true } ? FieldValue<I[K]> : FieldValue<I[K]> | null } & {
    [K in keyof I as I[K] extends { kind: 'reference' } ? `${K & string}_label` : never]: string | null;
  }
>;

/** Whether a definition has a status field (and so the `transition` action). */
export type HasStatus<D> = D extends { fields: infer F } ? ({ [K in keyof F]: F[K] extends { status: StatusFlow } ? K : never }[keyof F] extends never ? false : true) : false;

/** The transition action's declaration as a type (`transitionActionOf` builds its value). */
export interface TransitionActionType {
  versioned: true;
  input: { to: { kind: 'integer'; required: true }; override: { kind: 'boolean' } };
}

/** Every action of a definition, as types: the declared ones and `transition` for a status field. */
export type ActionsOfType<D> = (D extends { actions?: infer A } ? (unknown extends A ? Record<never, never> : NonNullable<A>) : Record<never, never>) &
  (HasStatus<D> extends true ? { transition: TransitionActionType } : Record<never, never>);

/** The sub-resources of a definition, as types. */
export type SubResourcesOfType<D> = D extends { subResources?: infer S } ? (unknown extends S ? Record<never, never> : NonNullable<S>) : Record<never, never>;
