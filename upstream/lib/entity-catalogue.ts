import type { EntityDef } from '../../shared/entity/define.ts';

/**
 * The entities the engine serves, handed in by the API's start-up (`upstream/app.ts`): the engine imports no
 * definition and no route table (ADR 073). A reference names its target by entity name; the catalogue answers
 * the definition, and who may read each entity (the back office's routes decide that).
 */
export interface EntityCatalogue {
  entities: readonly EntityDef[];
  /** The token scopes that read an entity (`upstreamReadScopes`, from the route table). */
  readScopes: (def: EntityDef) => string[];
}

let handed: EntityCatalogue | undefined;
let byName = new Map<string, EntityDef>();

/** Hands the engine its entities; the API's start-up calls it before it registers them. */
export function handEntityCatalogue(catalogue: EntityCatalogue): void {
  handed = catalogue;
  byName = new Map(catalogue.entities.map((def) => [def.name, def]));
}

function catalogue(): EntityCatalogue {
  if (!handed) throw new Error('the entity catalogue was not handed in (handEntityCatalogue)');
  return handed;
}

/** The definition of the entity of this name, or undefined. */
export function entityNamed(name: string): EntityDef | undefined {
  catalogue();
  return byName.get(name);
}

/** The definition of the entity of this name when a catalogue was handed in, else undefined (the history's writer: scripts write none). */
export function entityIfHanded(name: string): EntityDef | undefined {
  return byName.get(name);
}

/** The token scopes that read an entity's records. */
export function readScopesOf(def: EntityDef): string[] {
  return catalogue().readScopes(def);
}
