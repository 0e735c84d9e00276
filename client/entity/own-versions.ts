/**
 * Versions of records this tab wrote itself outside a form: an action button's answer (activate, a status step).
 * A form on the same page is then not told that "someone else" changed the record (ADR 063): the change is its own
 * page's. Another tab, another device or another person writes versions this tab never noted, and is told of.
 * Bounded: only the newest few hundred writes matter, a form being open on one record at a time.
 */
const MAX_NOTED = 256;
const noted = new Set<string>();

const keyOf = (entity: string, id: unknown, version: unknown) => `${entity}:${String(id)}:${String(version)}`;

export function noteOwnVersion(entity: string, id: unknown, version: unknown): void {
  if (version === undefined || version === null) return;
  noted.add(keyOf(entity, id, version));
  if (noted.size > MAX_NOTED) noted.delete(noted.values().next().value!);
}

export function isOwnVersion(entity: string, id: unknown, version: unknown): boolean {
  return noted.has(keyOf(entity, id, version));
}
