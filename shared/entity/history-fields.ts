import type { EntityDef, FieldDef, InputFields, SubResourceDef } from './define.ts';

/**
 * How a history entry's change of one key reads (ADR 065), found in the entity's definition — never per
 * screen: a field of the record (`fields`), the input an action was asked with (`actions.<key>.input`), a field
 * only the entity's own events carry (`history.fields`: an account's sign-in method), the items of a
 * sub-resource added, set or removed (`subResources.<key>`: a checklist's rows, a photo), or the query an export
 * was asked with. The API reads the same answer to label the references an entry keeps as ids; the History tab
 * and the Activity page to word and draw each value.
 */
export type HistoryPart =
  | { kind: 'field'; field: FieldDef; label: string }
  /** A sub-resource's items: `fields` describe an item's properties, `key` the field its bare key (a removed one) is. */
  | { kind: 'items'; fields: InputFields; key: string; label: string }
  /** An export's query: its keys are the entity's fields, `search` and `ordering` (or the history's own filters). */
  | { kind: 'query'; fields: InputFields; label: string };

/** The key of the history's own export (`/export/audit.csv`, ADR 036): its query is the history's filters. */
export const HISTORY_EXPORT_ENTITY = 'audit';

/** The history's filters as fields (ADR 036, 065): an export of the history names them in its query. */
export const HISTORY_FILTER_FIELDS: InputFields = {
  entity: { kind: 'text' },
  record_id: { kind: 'integer' },
  user_id: { kind: 'reference', reference: { entity: 'users' } },
  action: { kind: 'text' },
  from: { kind: 'date' },
  to: { kind: 'date' },
  account_events: { kind: 'enum', options: ['shown', 'hidden', 'only'] },
};

/** The fields an item of a sub-resource is described with: as read, as added and as set; `key` is its key field. */
function itemFields(sub: SubResourceDef, parent?: SubResourceDef): InputFields {
  return { ...parent?.item, ...sub.set, ...sub.add, ...sub.item };
}

/** A label's i18n key: a field of the record keeps its own, anything else is a history field of the entity. */
export function historyFieldLabel(def: EntityDef, key: string): string {
  return def.fields[key] && !def.history?.fields?.[key] ? `resources.${def.name}.fields.${key}` : `resources.${def.name}.historyFields.${key}`;
}

/**
 * How the change of `key` in an entry of `action` on `def` reads; null when the definition does not say (a
 * field since removed from it). A sub-resource's own items under another's (`details.images.add`: a photo of a
 * checklist row) are described by both: the photo's fields, and the row's that name which row.
 */
export function historyPart(def: EntityDef | undefined, action: string, key: string): HistoryPart | null {
  if (!def) return null;
  if (action === 'export' && key === 'query') return { kind: 'query', fields: def.fields, label: 'resources._history.query' };
  const input = def.actions?.[action]?.input?.[key];
  if (input) return { kind: 'field', field: input, label: historyFieldLabel(def, key) };
  const own = def.history?.fields?.[key];
  if (own) return { kind: 'field', field: own, label: historyFieldLabel(def, key) };
  const path = action.split('.');
  const sub = def.subResources?.[key];
  if (sub) {
    const parent = path.length === 3 && path[1] === key ? def.subResources?.[path[0]!] : undefined;
    return { kind: 'items', fields: itemFields(sub, parent), key: sub.key ?? 'id', label: `resources.${def.name}.subResources.${key}` };
  }
  const field = def.fields[key];
  if (field) return { kind: 'field', field, label: historyFieldLabel(def, key) };
  return null;
}

/** The history's own export's query (`entity` `audit`), described by the history's filters. */
export function historyExportPart(): HistoryPart {
  return { kind: 'query', fields: HISTORY_FILTER_FIELDS, label: 'resources._history.query' };
}

/**
 * Every key a definition's history entries can name that is not a field of the record, with its field: what a
 * test checks has a label in every language.
 */
export function historyFieldKeys(def: EntityDef): string[] {
  const keys = new Set<string>(Object.keys(def.history?.fields ?? {}));
  for (const action of Object.values(def.actions ?? {})) for (const key of Object.keys(action.input ?? {})) keys.add(key);
  // A sub-resource read only (a bicycle's service history) is never written, so never in an entry.
  for (const sub of Object.values(def.subResources ?? {})) if (sub.add || sub.set || sub.remove) for (const key of Object.keys(itemFields(sub))) keys.add(key);
  for (const key of Object.keys(def.fields)) if (!def.history?.fields?.[key]) keys.delete(key);
  return [...keys].sort();
}
