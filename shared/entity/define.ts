/**
 * One declarative definition per entity (ADR 006). From it come: the zod schemas (record, create,
 * update, list params: schemas.ts), the tRPC CRUD router, the upstream REST resource with its SQL table,
 * and the generic list / form screens, labelled by i18n keys `resources.<name>.*`. This module is plain
 * data and functions without zod, so a list screen loads a definition without the validation library.
 *
 * The index of its sections (ADR 073): the fields (`define-fields.ts`), the definition with its actions,
 * sub-resources and screens (`define-entity.ts`), what is derived from it (`define-derive.ts`), the types
 * derived for the typed router (`define-typed.ts`) and the label templates (`define-labels.ts`).
 */
export * from './define-fields.ts';
export * from './define-entity.ts';
export * from './define-derive.ts';
export * from './define-typed.ts';
export * from './define-labels.ts';
