import type { EntityDef } from '../../shared/entity/define.ts';

/**
 * The SQL of what the definitions declare in words (ADR 072). A definition says that references to users read as
 * a person's name, that a reference may name a role, that the users' search reads a full name over two columns;
 * how that reads in SQL is written here, on the server, so that no SQL of a definition reaches a browser chunk
 * (`tests/unit/client-sql.test.ts` reads the built client for every expression below).
 */
export interface EntitySql {
  /** The label over the row `r` of a reference to this entity that declares `sqlLabel`, instead of a label template (a person's name). */
  referenceLabel?: string;
  /** Which records a reference naming a role accepts, over the referenced row `r`, the role's name as `$2`. */
  roleHolders?: string;
  /** The SQL over the row `t` of each of the definition's `searchExpressions` (ADR 056), as stored (the search lowers it). */
  searchExpressions?: Readonly<Record<string, string>>;
}

/**
 * A user's label over the user row `r`: their full name, or their e-mail without one. Written with `||`
 * (immutable; `concat_ws` is not) so that migration 053 can index it for searches.
 */
export const USER_FULL_NAME_SQL = "coalesce(nullif(trim(coalesce(r.first_name, '') || ' ' || coalesce(r.last_name, '')), ''), r.email)";

export const ENTITY_SQL: Readonly<Record<string, EntitySql>> = {
  users: {
    referenceLabel: USER_FULL_NAME_SQL,
    // References naming a role (a service's buddy) take only active users holding it (§3).
    roleHolders: 'r.is_active and exists (select 1 from user_roles ur join roles ro on ro.id = ur.role_id where ur.user_id = r.id and ro.name = $2)',
    // A few hundred names repeat over the accounts: read through its terms (migration 089), short texts through bigrams (092).
    searchExpressions: { full_name: "coalesce(t.first_name, '') || ' ' || coalesce(t.last_name, '')" },
  },
};

/** The SQL label of a reference to `entity` that declares `sqlLabel` (a person's name). */
export function referenceLabelSql(entity: string): string {
  const label = sqlOf(entity).referenceLabel;
  if (!label) throw new Error(`a reference labelled in SQL needs the referenceLabel of ${entity} (entity-sql-parts.ts)`);
  return label;
}

/** The SQL parts of an entity (none for most). */
export function sqlOf(entity: string): EntitySql {
  return ENTITY_SQL[entity] ?? {};
}

/**
 * A definition's search expressions against their SQL here: each declared one has SQL and each SQL a declaration,
 * named unlike a field, reading columns of the list's row `t` only (another alias would name a table the list does
 * not read), with no parameter of its own (the search numbers its parameters itself). Throws at start-up.
 */
export function checkEntitySql(def: EntityDef, sql: EntitySql = sqlOf(def.name)): void {
  const declared = Object.keys(def.searchExpressions ?? {});
  const written = Object.keys(sql.searchExpressions ?? {});
  for (const key of declared) if (!written.includes(key)) throw new Error(`${def.name}.searchExpressions.${key}: no SQL in upstream/resources/entity-sql-parts.ts`);
  for (const [key, expression] of Object.entries(sql.searchExpressions ?? {})) {
    if (!declared.includes(key)) throw new Error(`${def.name}.searchExpressions.${key}: SQL for an undeclared search expression`);
    if (key in def.fields) throw new Error(`${def.name}.searchExpressions.${key}: a field has that name`);
    if (!/^[a-z][a-z0-9_]*$/.test(key)) throw new Error(`${def.name}.searchExpressions.${key}: names are snake_case identifiers`);
    const aliases = [...expression.matchAll(/\b([A-Za-z_][A-Za-z0-9_]*)\.[A-Za-z_"]/g)].map((m) => m[1]!);
    if (aliases.length === 0 || aliases.some((alias) => alias !== 't')) throw new Error(`${def.name}.searchExpressions.${key}: reads columns of the row t, and only those`);
    if (/\$\d/.test(expression)) throw new Error(`${def.name}.searchExpressions.${key}: takes no parameter`);
  }
}
