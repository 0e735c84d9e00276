import { rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ENTITIES } from '../../shared/entities/registry.ts';
import type { EntityDef } from '../../shared/entity/define.ts';
import type { UpstreamConfig } from '../config.ts';
import type { Db } from '../db.ts';

/**
 * Every column that holds the access URL of an upload: the image fields of the entity definitions (a new
 * entity with an image field is covered by defining it), plus the tables the definitions do not describe.
 * An upload is in use while any of these names it; the sweep never deletes such a file.
 */
export const UPLOAD_REFERENCES: readonly { table: string; column: string }[] = [
  { table: 'users', column: 'profile_image' },
  { table: 'bicycle_images', column: 'url' },
  { table: 'service_detail_images', column: 'url' },
  ...(ENTITIES as readonly EntityDef[]).flatMap((def) =>
    Object.entries(def.fields)
      .filter(([, field]) => field.kind === 'image' && !field.lookup)
      .map(([column]) => ({ table: def.table, column })),
  ),
];

const BATCH = 500;

/**
 * Deletes uploads signed more than `unusedUploadMaxAgeSeconds` ago that no record refers to — never used,
 * or stored and not attached to anything (never, or no longer) — rows first, then their files (issue 12 L4, ADR 020). Returns the keys.
 */
export async function sweepUnusedUploads(db: Db, config: Pick<UpstreamConfig, 'uploadDir' | 'unusedUploadMaxAgeSeconds'>): Promise<string[]> {
  const referenced = UPLOAD_REFERENCES.map(({ table, column }) => `select substring(${column} from '/files/(.+)$') as key from ${table} where ${column} like '%/files/%'`).join(
    ' union ',
  );
  const { rows } = await db.query<{ key: string }>(
    `with referenced as (${referenced})
     delete from uploads
      where key in (
        select u.key from uploads u
         where u.created_at < now() - make_interval(secs => $1)
           and not exists (select 1 from referenced r where r.key = u.key)
         order by u.created_at
         limit ${BATCH})
     returning key`,
    [config.unusedUploadMaxAgeSeconds],
  );
  const root = resolve(config.uploadDir);
  for (const { key } of rows) {
    const path = join(root, key);
    if (path.startsWith(root + '/')) await rm(path, { force: true });
  }
  return rows.map((r) => r.key);
}
