import { runsOutsideTransaction, splitStatements, type SqlStatement } from './sql-statements.ts';

/**
 * The rules a migration keeps so that it never stops the app (ADR 060): no statement holds a lock on a table
 * that already has rows for longer than a moment. Each rule names what it catches and what to write instead;
 * tables created in the same migration are exempt (nobody else uses them yet).
 * `tests/unit/migration-rules.test.ts` reads every migration with them.
 */
export interface MigrationFinding {
  rule: RuleId;
  /** The statement's words (`SqlStatement.words`). */
  statement: string;
  /** What the author does instead. */
  message: string;
}

/** What a rule is given: one statement of a file, or one action of an `alter table`. */
interface Checked {
  /** The statement, or for `alter table` one of its actions ("add column …", "alter column … type …"). */
  words: string;
  /** The table the statement changes, when it names one. */
  table?: string;
  file: { outside: boolean; created: ReadonlySet<string>; addedConstraints: ReadonlySet<string>; validated: ReadonlySet<string> };
}

interface Rule {
  /** Whether the statement (or action) of an `alter table`/`create index` breaks the rule. */
  breaks: (c: Checked) => boolean;
  /** Whether the rule reads `alter table` actions rather than statements. */
  action?: boolean;
  /** Whether a table created in the same file is exempt. Default true. */
  exemptsNewTables?: boolean;
  instead: string;
}

const NO_TX = 'in a migration of its own whose first line is `-- migrate: no-transaction`';
const VOLATILE = /\b(random|gen_random_uuid|uuid_generate_v\w*|clock_timestamp|timeofday|nextval|txid_current|statement_timestamp)\s*\(/;
/** `add column …` (the word column is optional) rather than `add constraint`, `add check (…)`, … */
const ADDS_COLUMN = /^add (?!(constraint|check|foreign|unique|primary|exclude)\b)/;
const ADDS_CONSTRAINT = /^add (constraint \S+ )?/;
/** Statements safe to run again after a failure half way, as a no-transaction file needs. */
const RERUNNABLE = [
  /^create (unique )?index concurrently if not exists /,
  /^drop index concurrently if exists /,
  /^reindex (index|table) concurrently /,
  /^analyze\b/,
  /^alter table (if exists )?(only )?\S+ validate constraint \S+$/,
  /^set /,
];

export const RULES = {
  'index-without-concurrently': {
    breaks: (c) => /^create (unique )?index (?!concurrently)/.test(c.words),
    instead: `build it with \`create index concurrently if not exists\` ${NO_TX}: writes go on while it is built`,
  },
  'drop-index-without-concurrently': {
    breaks: (c) => /^drop index (?!concurrently)/.test(c.words),
    exemptsNewTables: false,
    instead: `drop it with \`drop index concurrently if exists\` ${NO_TX}`,
  },
  'reindex-without-concurrently': {
    breaks: (c) => /^reindex (?!.*\bconcurrently\b)/.test(c.words),
    exemptsNewTables: false,
    instead: `use \`reindex index concurrently\` ${NO_TX}`,
  },
  'concurrently-in-transaction': {
    breaks: (c) => !c.file.outside && /^(create (unique )?index|drop index|reindex (index|table)) concurrently/.test(c.words),
    exemptsNewTables: false,
    instead: 'make `-- migrate: no-transaction` the first line of the file: PostgreSQL refuses `concurrently` in a transaction',
  },
  'not-rerunnable-outside-transaction': {
    breaks: (c) => c.file.outside && !RERUNNABLE.some((r) => r.test(c.words)),
    exemptsNewTables: false,
    instead:
      'a no-transaction migration holds only statements that can run again after a failure half way: `create index concurrently if not exists`, `drop index concurrently if exists`, `reindex … concurrently`, `analyze`, `validate constraint`; put the rest in a migration of its own',
  },
  'volatile-default': {
    action: true,
    breaks: (c) =>
      ADDS_COLUMN.test(c.words) &&
      ((/\bdefault\b/.test(c.words) && VOLATILE.test(c.words)) || /\b(small|big)?serial\b/.test(c.words) || /\bgenerated\b.*\b(stored|identity)\b/.test(c.words)),
    instead:
      'a volatile default (random(), gen_random_uuid(), clock_timestamp(), a serial, a stored generated or identity column) rewrites the table under an exclusive lock: add the column without a default or with a constant one (`now()` is fine), `alter column … set default …` for new rows, and fill the existing rows in batches outside the migration',
  },
  'column-type-change': {
    action: true,
    breaks: (c) => /^alter (column )?\S+ (set data )?type\b/.test(c.words),
    instead:
      "changing a column's type rewrites the table (and its indexes) under an exclusive lock: add a column of the new type, write both, fill it in batches, read the new one, then drop the old one",
  },
  'table-rewrite': {
    action: true,
    breaks: (c) => /^set (logged|unlogged|tablespace|access method)\b/.test(c.words),
    instead: 'this rewrites or moves the whole table under an exclusive lock: not in a migration',
  },
  'set-not-null-without-check': {
    action: true,
    breaks: (c) => /^alter (column )?\S+ set not null\b/.test(c.words) && !(c.table && c.file.validated.has(c.table)),
    instead:
      '`set not null` reads the whole table under an exclusive lock: add `constraint <table>_<column>_not_null check (<column> is not null) not valid` in one migration; in a later one `validate constraint` it, then `set not null` (no read, given the valid check) and drop the check',
  },
  'constraint-without-not-valid': {
    action: true,
    breaks: (c) =>
      ((ADDS_CONSTRAINT.test(c.words) && /^add (constraint \S+ )?(check|foreign key)\b/.test(c.words)) || (ADDS_COLUMN.test(c.words) && /\b(references|check)\b/.test(c.words))) &&
      !/\bnot valid$/.test(c.words),
    instead:
      'a check or foreign key is checked against every row while writes wait: add it `not valid` (only new rows are checked), then `validate constraint` in a later migration (it reads the table without blocking writes); a new column gets its foreign key the same way, as a constraint of its own',
  },
  'unique-without-index': {
    action: true,
    breaks: (c) =>
      ((ADDS_CONSTRAINT.test(c.words) && /^add (constraint \S+ )?(unique|primary key|exclude)\b/.test(c.words)) ||
        (ADDS_COLUMN.test(c.words) && /\b(unique|primary key)\b/.test(c.words))) &&
      !/\busing index\b/.test(c.words),
    instead: `build the unique index with \`create unique index concurrently if not exists\` ${NO_TX}, then \`add constraint … unique using index …\` (a moment's lock)`,
  },
  'validate-in-same-transaction': {
    action: true,
    breaks: (c) => {
      const name = /^validate constraint (\S+)$/.exec(c.words)?.[1];
      return !c.file.outside && name !== undefined && c.file.addedConstraints.has(name);
    },
    instead: 'validate it in a later migration: in the transaction that added it, the lock taken to add it is held while every row is read',
  },
  'vacuum-full': {
    breaks: (c) => /^vacuum\b.*\bfull\b/.test(c.words),
    exemptsNewTables: false,
    instead: '`vacuum full` rewrites the table under an exclusive lock: a plain `vacuum` (or pg_repack, run by operations) instead',
  },
  cluster: {
    breaks: (c) => /^cluster\b/.test(c.words),
    exemptsNewTables: false,
    instead: '`cluster` rewrites the table under an exclusive lock: not in a migration (pg_repack, run by operations)',
  },
  'lock-table': {
    breaks: (c) => /^lock (table )?\S/.test(c.words),
    exemptsNewTables: false,
    instead: 'do not lock a whole table: each statement takes the lock it needs, for as short as it can',
  },
  'refresh-without-concurrently': {
    breaks: (c) => /^refresh materialized view (?!concurrently)/.test(c.words),
    exemptsNewTables: false,
    instead: '`refresh materialized view concurrently` (it needs a unique index) lets reads go on',
  },
} satisfies Record<string, Rule>;

export type RuleId = keyof typeof RULES;

/** A table's name as the rules compare it: unquoted, lower case, without `public.`. */
const tableName = (name: string) => name.replace(/"/g, '').replace(/^public\./, '');

function tableOf(words: string): string | undefined {
  const alter = /^alter table (?:if exists )?(?:only )?(\S+)/.exec(words);
  const index = /^create (?:unique )?index (?:concurrently )?(?:if not exists )?(?:(?!on )\S+ )?on (?:only )?([^\s(]+)/.exec(words);
  const name = alter?.[1] ?? index?.[1];
  return name === undefined ? undefined : tableName(name);
}

/** An `alter table`'s actions, split at its top-level commas ("add column a int", "alter column b type text"). */
export function alterActions(words: string): string[] {
  const rest = /^alter table (?:if exists )?(?:only )?\S+ (.*)$/.exec(words)?.[1];
  if (rest === undefined) return [];
  const actions: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < rest.length; i++) {
    if (rest[i] === '(') depth++;
    else if (rest[i] === ')') depth--;
    else if (rest[i] === ',' && depth === 0) {
      actions.push(rest.slice(start, i).trim());
      start = i + 1;
    }
  }
  actions.push(rest.slice(start).trim());
  return actions;
}

function fileFacts(statements: readonly SqlStatement[]): Omit<Checked['file'], 'outside'> {
  const created = new Set<string>();
  const addedConstraints = new Set<string>();
  const validated = new Set<string>();
  for (const { words } of statements) {
    const table = /^create (?:temp(?:orary)? |unlogged )?table (?:if not exists )?([^\s(]+)/.exec(words)?.[1];
    if (table) created.add(tableName(table));
    for (const action of alterActions(words)) {
      const added = /^add constraint (\S+)/.exec(action)?.[1];
      if (added) addedConstraints.add(added);
      if (/^validate constraint /.test(action)) validated.add(tableOf(words)!);
    }
  }
  return { created, addedConstraints, validated };
}

/** The rules one migration file breaks, in the order of its statements. */
export function checkMigration(sql: string): MigrationFinding[] {
  const outside = runsOutsideTransaction(sql);
  const statements = splitStatements(sql);
  const file = { outside, ...fileFacts(statements) };
  const findings: MigrationFinding[] = [];
  for (const { words } of statements) {
    const table = tableOf(words);
    const exempt = table !== undefined && file.created.has(table);
    for (const [id, rule] of Object.entries(RULES) as [RuleId, Rule][]) {
      if (exempt && rule.exemptsNewTables !== false) continue;
      const parts = rule.action ? alterActions(words) : [words];
      if (parts.some((part) => rule.breaks({ words: part, table, file }))) findings.push({ rule: id, statement: words, message: rule.instead });
    }
  }
  return findings;
}
