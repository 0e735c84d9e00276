import { isRecordAction, labelFields, statusFieldOf, type ActionDef, type EntityDef } from './define.ts';

/**
 * The rules a definition must keep (field names, the fields its label, owner, calendar, location, unique
 * groups and stamps name, action and sub-resource keys). Run for every definition of the registry
 * (`shared/entities/registry.ts`), so the server, the API and the tests refuse a broken one at start; not by
 * `defineEntity` itself, so the browser, which loads single definitions, does not carry them (ADR 024): in a module of its own, so the definitions' chunk does not carry it either.
 */
export function checkDefinition(def: EntityDef, entityByName: (name: string) => EntityDef | undefined = () => undefined): EntityDef {
  for (const key of Object.keys(def.fields)) {
    if (!/^[a-z][a-z0-9_]*$/.test(key)) throw new Error(`${def.name}.${key}: field names are snake_case identifiers`);
  }
  const known = knownField(def);
  checkAccess(def, entityByName);
  for (const key of labelFields(def.label)) {
    const reference = key.endsWith('_label') ? def.fields[key.slice(0, -'_label'.length)] : undefined;
    if (key !== 'id' && !(key in def.fields) && reference?.kind !== 'reference') throw new Error(`${def.name}: label names unknown field ${key}`);
  }
  known(def.calendarField, 'calendarField');
  known(def.activeField, 'activeField');
  checkFieldOptions(def);
  if (def.activeField && (def.fields[def.activeField]!.kind !== 'boolean' || def.fields[def.activeField]!.filter !== true))
    throw new Error(`${def.name}: activeField ${def.activeField} must be a boolean list filter`);
  for (const key of Object.values(def.location ?? {})) if (typeof key === 'string') known(key, 'location');
  for (const group of def.unique ?? []) for (const key of group.fields) known(key, `unique ${group.name}`);
  for (const [key, field] of Object.entries(def.fields)) {
    if (!field.status) continue;
    for (const stamp of Object.values(field.status.stamps ?? {})) {
      known(stamp, `${key}.status.stamps`);
      if (!def.fields[stamp]!.readOnly) throw new Error(`${def.name}.${stamp}: status stamps are read-only`);
    }
  }
  checkActions(def);
  return def;
}

/** Throws unless `key` (when given) is a field of the definition; `what` says which option names it. */
function knownField(def: EntityDef) {
  return (key: string | undefined, what: string) => {
    if (key !== undefined && !(key in def.fields)) throw new Error(`${def.name}: ${what} names unknown field ${key}`);
  };
}

/** The owner field, and the entities a record is read through (each with an owner, by a reference to this one). */
function checkAccess(def: EntityDef, entityByName: (name: string) => EntityDef | undefined) {
  knownField(def)(def.access?.ownerField, 'access.ownerField');
  for (const rule of def.access?.readThrough ?? []) {
    const through = entityByName(rule.entity);
    const field = through?.fields[rule.field];
    if (!through?.access?.ownerField) throw new Error(`${def.name}: access.readThrough names ${rule.entity}, which has no owner field`);
    if (field?.kind !== 'reference' || field.reference?.entity !== def.name)
      throw new Error(`${def.name}: access.readThrough: ${rule.entity}.${rule.field} is no reference to ${def.name}`);
  }
}

/** The fields' search and due options, and the search expressions' names. */
function checkFieldOptions(def: EntityDef) {
  for (const [key, field] of Object.entries(def.fields))
    // A term is a b-tree key: at most 2 704 bytes, so a few hundred characters (ADR 050).
    if (field.valuesRepeat && !(field.searchable && field.kind === 'text' && !field.multiline && (field.max ?? Infinity) <= 600))
      throw new Error(`${def.name}.${key}: valuesRepeat is for a searchable single-line text of at most 600 characters`);
  for (const [key, field] of Object.entries(def.fields))
    if (field.shortSearch && !(field.kind === 'text' || field.kind === 'email')) throw new Error(`${def.name}.${key}: shortSearch is for a text`);
  for (const key of Object.keys(def.searchExpressions ?? {})) {
    // Its SQL is checked with it on the server (checkEntitySql, ADR 072).
    if (key in def.fields) throw new Error(`${def.name}.searchExpressions.${key}: a field has that name`);
    if (!/^[a-z][a-z0-9_]*$/.test(key)) throw new Error(`${def.name}.searchExpressions.${key}: names are snake_case identifiers`);
  }
  for (const [key, field] of Object.entries(def.fields)) if (field.due && field.kind !== 'date') throw new Error(`${def.name}.${key}: only a date can be due`);
}

/** Action and sub-resource keys, the transition action, action variants and `sets`. */
function checkActions(def: EntityDef) {
  for (const [key, action] of Object.entries(def.actions ?? {})) {
    // The transition action comes from the status field; a declared one may only add an override.
    if (key === 'transition' && statusFieldOf(def) && Object.keys(action).some((k) => k !== 'override'))
      throw new Error(`${def.name}: the transition action comes from the status field (declare only its override)`);
    if (!/^[a-z][A-Za-z0-9]*$/.test(key)) throw new Error(`${def.name}.actions.${key}: action keys are camelCase identifiers`);
    for (const variant of Object.values(action.variants ?? {}))
      for (const input of Object.keys(variant)) if (!(input in (action.input ?? {}))) throw new Error(`${def.name}.actions.${key}: a variant sets unknown input ${input}`);
    checkSets(def, key, action);
  }
  for (const [key, sub] of Object.entries(def.subResources ?? {})) {
    if (!/^[a-z][A-Za-z0-9]*$/.test(key)) throw new Error(`${def.name}.subResources.${key}: sub-resource keys are camelCase identifiers`);
    if (sub.set && !sub.key) throw new Error(`${def.name}.subResources.${key}: set needs the item's key`);
    if (sub.setMany && !sub.set) throw new Error(`${def.name}.subResources.${key}: setMany needs set`);
  }
}

/** A `sets` action (ADR 069) changes writable fields of one record, and only those. */
function checkSets(def: EntityDef, key: string, action: ActionDef) {
  if (!action.sets) return;
  const where = `${def.name}.actions.${key}.sets`;
  if (!isRecordAction(action)) throw new Error(`${where}: only a record action sets fields`);
  const names = action.sets === 'input' ? Object.keys(action.input ?? {}) : Object.keys(action.sets);
  if (names.length === 0) throw new Error(`${where}: sets no field`);
  for (const name of names) {
    const field = def.fields[name];
    if (!field) throw new Error(`${where}: names unknown field ${name}`);
    if (field.readOnly || field.secret) throw new Error(`${where}: ${name} is not writable`);
  }
}
