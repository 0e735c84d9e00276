import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { checkDefinition } from '../shared/entity/define-checks.ts';
import { camelName, defineEntity, screenTitleKeys, type EntityDef, type FieldDef, type FieldKind } from '../shared/entity/define.ts';
import { entityTableSql } from '../upstream/resources/entity-sql.ts';

/**
 * `npm run new:entity -- <name> [options]` scaffolds a plain entity (ADR 031): its definition with a
 * screen, its line in the registry, its labels and screen titles in English and Swedish, and the
 * migration of its table. Everything else (routes, sidebar, screens) derives from the definition.
 *
 *   --fields "name:text!,address:text,active:boolean"   fields in order (`!`: required); default "name:text!"
 *   --detail            a record page at /<name>/:id (default: records open in a dialog of the list)
 *   --icon <name>       sidebar octicon, a name of client/components/sprite-icon-names.ts (default: package)
 *   --sidebar <order>   sidebar position (default: after the last entry), in the Catalogues group (change `group` by hand)
 *   --roles Admin,…     who opens the screens (default: Admin)
 *   --root <dir>        the project to write into (default: this one; tests use a copy)
 */
const KINDS: readonly FieldKind[] = ['text', 'email', 'phone', 'url', 'integer', 'decimal', 'money', 'boolean', 'date', 'time', 'datetime'];
const ROLES = ['Admin', 'Buddy', 'Shop', 'BuddyShop'] as const;
/** Swedish labels of common field names; any other is written in English for a translator to finish. */
const SWEDISH: Record<string, string> = {
  name: 'Namn',
  address: 'Adress',
  active: 'Aktiv',
  description: 'Beskrivning',
  email: 'E-post',
  phone: 'Telefon',
  notes: 'Anteckningar',
  city: 'Stad',
  price: 'Pris',
  date: 'Datum',
  url: 'Webbadress',
};

class UsageError extends Error {}

interface Options {
  name: string;
  fields: [string, FieldDef][];
  detail: boolean;
  icon: string;
  sidebar?: number;
  roles: (typeof ROLES)[number][];
  root: string;
}

function parseOptions(argv: string[]): Options {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      fields: { type: 'string', default: 'name:text!' },
      detail: { type: 'boolean', default: false },
      icon: { type: 'string', default: 'package' },
      sidebar: { type: 'string' },
      roles: { type: 'string', default: 'Admin' },
      root: { type: 'string', default: join(import.meta.dirname, '..') },
    },
  });
  const [name, ...rest] = positionals;
  if (!name || rest.length > 0)
    throw new UsageError(
      'usage: npm run new:entity -- <name> [--fields "name:text!,active:boolean"] [--detail] [--icon <octicon>] [--sidebar <order>] [--roles Admin,…] [--root <dir>]',
    );
  if (!/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/.test(name)) throw new UsageError(`"${name}": an entity name is plural kebab-case (workshops, repair-kits)`);
  const roles = values.roles.split(',').map((r) => r.trim());
  const unknownRole = roles.find((r) => !(ROLES as readonly string[]).includes(r));
  if (unknownRole) throw new UsageError(`unknown role ${unknownRole} (${ROLES.join(', ')})`);
  const sidebar = values.sidebar === undefined ? undefined : Number(values.sidebar);
  if (sidebar !== undefined && !Number.isInteger(sidebar)) throw new UsageError(`--sidebar ${values.sidebar}: a whole number`);
  return { name, fields: parseFields(values.fields), detail: values.detail, icon: values.icon, sidebar, roles: roles as Options['roles'], root: resolve(values.root) };
}

function parseFields(spec: string): [string, FieldDef][] {
  const fields = spec.split(',').map((part, index): [string, FieldDef] => {
    const match = /^\s*([a-z][a-z0-9_]*):([a-z]+)(!?)\s*$/.exec(part);
    if (!match) throw new UsageError(`--fields: "${part}" is not <snake_case_name>:<kind>[!]`);
    const [, key, kind, bang] = match as unknown as [string, string, FieldKind, string];
    if (!KINDS.includes(kind)) throw new UsageError(`--fields: ${key} has kind ${kind}; plain kinds are ${KINDS.join(', ')} (references and choices are added by hand)`);
    const field: FieldDef = { kind };
    if ((bang || index === 0) && kind !== 'boolean') field.required = true;
    if (kind === 'text') field.max = index === 0 ? 120 : 500;
    if (index === 0 && kind !== 'boolean') {
      if (kind === 'text' || kind === 'email') field.searchable = true;
      field.sortable = true;
    }
    field.list = true;
    return [key, field];
  });
  const duplicate = fields.find(([key], i) => fields.findIndex(([k]) => k === key) !== i);
  if (duplicate) throw new UsageError(`--fields: ${duplicate[0]} is given twice`);
  return fields;
}

const read = (root: string, path: string) => readFileSync(join(root, path), 'utf8');
const humanize = (key: string) => key.charAt(0).toUpperCase() + key.slice(1).replace(/[-_]/g, ' ');
const singular = (plural: string) =>
  plural
    .replace(/ies$/, 'y')
    .replace(/(ss|sh|ch|x)es$/, '$1')
    .replace(/([^s])s$/, '$1');

/** Why `name` cannot be used, or null. */
function conflict(root: string, name: string, table: string): string | null {
  const file = `shared/entities/${name}.ts`;
  if (existsSync(join(root, file))) return `an entity named "${name}" exists (${file})`;
  if (read(root, 'shared/entities/registry.ts').includes(`'./${name}.ts'`)) return `the registry already imports ./${name}.ts`;
  for (const lang of ['en', 'sv']) {
    const resources = JSON.parse(read(root, `locales/${lang}/resources.json`)) as Record<string, unknown>;
    if (name in resources) return `locales/${lang}/resources.json already has labels for "${name}"`;
    const routes = (JSON.parse(read(root, `locales/${lang}/common.json`)) as { routes: Record<string, string> }).routes;
    const taken = Object.values(screenTitleKeys(name)).find((key) => key.slice('routes.'.length) in routes);
    if (taken) return `locales/${lang}/common.json already has ${taken}`;
  }
  const migration = readdirSync(join(root, 'upstream/migrations')).find(
    (f) => f.endsWith(`-${name}.sql`) || new RegExp(`create table ${table} \\(`).test(read(root, `upstream/migrations/${f}`)),
  );
  if (migration) return `upstream/migrations/${migration} already creates a table for "${name}"`;
  const paths = [...`${read(root, 'shared/route-table.ts')}\n${entitySources(root)}`.matchAll(/(?:path|list|detail): '([^']+)'/g)].map((m) => m[1]);
  if (paths.includes(`/${name}`)) return `the route /${name} is taken`;
  return null;
}

function entitySources(root: string): string {
  const dir = join(root, 'shared/entities');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.ts'))
    .map((f) => readFileSync(join(dir, f), 'utf8'))
    .join('\n');
}

function nextSidebarOrder(root: string): number {
  const orders = [...`${read(root, 'shared/route-table.ts')}\n${entitySources(root)}`.matchAll(/order: (\d+)/g)].map((m) => Number(m[1]));
  return Math.max(0, ...orders) + 10;
}

function spriteIcons(root: string): Set<string> {
  const source = read(root, 'client/components/sprite-icon-names.ts');
  return new Set([...source.matchAll(/^\s+'?([a-z0-9-]+)'?: '\w+Icon',$/gm)].map((m) => m[1]!));
}

function literal(value: unknown): string {
  if (typeof value === 'string') return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  if (Array.isArray(value)) return `[${value.map(literal).join(', ')}]`;
  if (value && typeof value === 'object')
    return `{ ${Object.entries(value)
      .map(([k, v]) => `${/^[a-zA-Z_]\w*$/.test(k) ? k : literal(k)}: ${literal(v)}`)
      .join(', ')} }`;
  return String(value);
}

function definitionSource(def: EntityDef, exportName: string, title: string): string {
  const fields = Object.entries(def.fields).map(([key, field]) => `    ${key}: ${literal(field)},`);
  const [labelField] = Object.keys(def.fields);
  return [
    "import { defineEntity } from '../entity/define.ts';",
    '',
    `/** ${title} (scaffolded by scripts/new-entity.ts; ADR 031). */`,
    `export const ${exportName} = defineEntity({`,
    `  name: ${literal(def.name)},`,
    `  screen: ${literal(def.screen)},`,
    // The table (the name in snake_case) and the sort (the label's field) are the defaults: not written.
    `  label: '{${labelField}}',`,
    '  fields: {',
    ...fields,
    '  },',
    '});',
    '',
  ].join('\n');
}

/** The registry imports the definition and lists it last (its table is created after the others). */
function registrySource(source: string, exportName: string, name: string): string {
  const lines = source.split('\n');
  const lastImport = lines.findLastIndex((line) => /^import .* from '\.\/[^']+\.ts';$/.test(line));
  const end = lines.findIndex((line) => /^\] as const satisfies/.test(line));
  if (lastImport < 0 || end < 0) throw new Error('shared/entities/registry.ts: no import lines or no `] as const satisfies` closing ENTITIES');
  lines.splice(end, 0, `  ${exportName},`);
  lines.splice(lastImport + 1, 0, `import { ${exportName} } from './${name}.ts';`);
  return lines.join('\n');
}

function writeJson(root: string, path: string, edit: (json: Record<string, unknown>) => void): void {
  const source = read(root, path);
  const json = JSON.parse(source) as Record<string, unknown>;
  edit(json);
  writeFileSync(join(root, path), JSON.stringify(json, null, 2) + (source.endsWith('\n') ? '\n' : ''));
}

function nextMigration(root: string, name: string): string {
  const numbers = readdirSync(join(root, 'upstream/migrations'))
    .filter((f) => f.endsWith('.sql'))
    .map((f) => Number.parseInt(f, 10))
    .filter(Number.isFinite);
  return `upstream/migrations/${String(Math.max(0, ...numbers) + 1).padStart(3, '0')}-${name}.sql`;
}

/** Writes the entity; returns the files written (relative to the root). */
export function newEntity(options: Options): string[] {
  const { name, root } = options;
  const table = name.replace(/-/g, '_');
  const why = conflict(root, name, table);
  if (why) throw new UsageError(`refused: ${why}; pick another name`);
  if (!spriteIcons(root).has(options.icon)) throw new UsageError(`--icon ${options.icon}: not in client/components/sprite-icon-names.ts (add it there first)`);

  const title = humanize(name);
  const one = singular(name).replace(/-/g, ' ');
  const [first] = options.fields;
  const def = checkDefinition(
    defineEntity({
      name,
      screen: {
        list: `/${name}`,
        ...(options.detail && { detail: `/${name}/:id` as const }),
        roles: options.roles,
        sidebar: { group: 'catalogues', order: options.sidebar ?? nextSidebarOrder(root), icon: options.icon },
      },
      table,
      defaultSort: first![1].sortable ? first![0] : '-id',
      label: '{id}',
      fields: Object.fromEntries(options.fields),
    }),
  );
  const exportName = `${camelName(name)}Entity`;
  const titles = screenTitleKeys(name);
  const written: string[] = [];
  const write = (path: string, source: string) => {
    writeFileSync(join(root, path), source);
    written.push(path);
  };

  write(`shared/entities/${name}.ts`, definitionSource(def, exportName, title));
  write('shared/entities/registry.ts', registrySource(read(root, 'shared/entities/registry.ts'), exportName, name));
  for (const lang of ['en', 'sv'] as const) {
    const label = (key: string) => (lang === 'sv' && SWEDISH[key]) || humanize(key);
    writeJson(root, `locales/${lang}/resources.json`, (json) => {
      json[name] = { name: title, one, fields: Object.fromEntries(options.fields.map(([key]) => [key, label(key)])) };
    });
    writeJson(root, `locales/${lang}/common.json`, (json) => {
      const routes = json.routes as Record<string, string>;
      routes[titles.list.slice('routes.'.length)] = title;
      if (options.detail) routes[titles.detail.slice('routes.'.length)] = humanize(one);
    });
    written.push(`locales/${lang}/resources.json`, `locales/${lang}/common.json`);
  }
  write(
    nextMigration(root, name),
    [`-- Generated by scripts/new-entity.ts from shared/entities/${name}.ts; later changes need a new migration.`, '', entityTableSql(def)].join('\n'),
  );
  return written;
}

if (import.meta.main) {
  try {
    const options = parseOptions(process.argv.slice(2));
    const written = newEntity(options);
    process.stdout.write(
      `new entity ${options.name}: wrote\n${written.map((f) => `  ${f}\n`).join('')}` +
        `Swedish labels without a known translation are in English: translate them in locales/sv/. The list is at /${options.name}.\n`,
    );
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`new-entity: ${error.message}\n`);
    process.exit(1);
  }
}
