import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkMigration, RULES, type RuleId } from '../../upstream/lib/migration-rules.ts';
import { runsOutsideTransaction, splitStatements } from '../../upstream/lib/sql-statements.ts';
import { migrationsDir } from '../../upstream/migrate.ts';

/**
 * Every migration keeps the rules that keep the app running while it is applied (ADR 060). Files up to 092
 * were applied in every deployment before the rules existed: what they break is listed below, reviewed, with
 * why it stays. A migration runs once, so rewriting one changes nothing where it ran (and would no longer say
 * what ran there); on a fresh database the tables are empty and the lock lasts a moment. No file after 092 has
 * an exception.
 */
const FIRST_SCHEMA = 'applied in every deployment; part of creating these tables (the first schema, 001-025), when they were still empty';
const APPLIED = 'applied in every deployment before the rules (ADR 060); it took its lock once, at the deployment that brought it';
const EXCEPTIONS: Record<string, { reason: string; findings: Partial<Record<RuleId, number>> }> = {
  '003-user-checks.sql': { reason: FIRST_SCHEMA, findings: { 'constraint-without-not-valid': 1, 'index-without-concurrently': 2 } },
  '005-user-links.sql': { reason: FIRST_SCHEMA, findings: { 'index-without-concurrently': 2 } },
  '007-service-rules.sql': { reason: FIRST_SCHEMA, findings: { 'constraint-without-not-valid': 3, 'index-without-concurrently': 3 } },
  '021-subscription-rules.sql': { reason: FIRST_SCHEMA, findings: { 'constraint-without-not-valid': 2, 'index-without-concurrently': 2 } },
  '023-event-rules.sql': { reason: FIRST_SCHEMA, findings: { 'constraint-without-not-valid': 3, 'index-without-concurrently': 3 } },
  '040-search-indexes.sql': { reason: APPLIED, findings: { 'index-without-concurrently': 6 } },
  '051-event-booking-service.sql': { reason: APPLIED, findings: { 'constraint-without-not-valid': 1 } },
  '052-dashboard-indexes.sql': { reason: APPLIED, findings: { 'index-without-concurrently': 2 } },
  '053-reference-search-indexes.sql': { reason: APPLIED, findings: { 'index-without-concurrently': 5 } },
  '060-canceled-invitations.sql': { reason: APPLIED, findings: { 'constraint-without-not-valid': 1 } },
  '061-sessions.sql': { reason: `${APPLIED}; the refresh tokens it checked are short-lived`, findings: { 'constraint-without-not-valid': 1 } },
  '065-subscription-payments.sql': { reason: APPLIED, findings: { 'constraint-without-not-valid': 1, 'index-without-concurrently': 1 } },
  '066-upload-ownership.sql': { reason: APPLIED, findings: { 'constraint-without-not-valid': 1, 'index-without-concurrently': 2 } },
  '076-service-types.sql': { reason: APPLIED, findings: { 'constraint-without-not-valid': 1, 'index-without-concurrently': 1 } },
  '077-service-rating.sql': { reason: APPLIED, findings: { 'constraint-without-not-valid': 1, 'index-without-concurrently': 1 } },
  '085-checklist-required-and-service-images.sql': { reason: APPLIED, findings: { 'index-without-concurrently': 1 } },
  '088-services-origin-date-index.sql': { reason: APPLIED, findings: { 'index-without-concurrently': 1 } },
  '089-search-terms.sql': { reason: APPLIED, findings: { 'index-without-concurrently': 4 } },
  '090-sort-indexes-cover-boolean-filters.sql': {
    reason: `${APPLIED}; catalogue tables of a few hundred rows`,
    findings: { 'drop-index-without-concurrently': 23, 'index-without-concurrently': 23 },
  },
  // The two of issue 38: 091 held services, bicycles and users, 092 users for ~70 s at 1M users.
  '091-search-bigrams.sql': { reason: `${APPLIED}; issue 38: it held three tables while it built`, findings: { 'index-without-concurrently': 4 } },
  '092-users-search-through-the-engine.sql': {
    reason: `${APPLIED}; issue 38: it held users ~70 s at 1M users`,
    findings: { 'index-without-concurrently': 4, 'drop-index-without-concurrently': 1 },
  },
};

const OUTSIDE = '-- migrate: no-transaction\n';

/** For each rule: migrations that break it, and the way to write the same that keeps every rule. */
const FIXTURES: Record<RuleId, { bad: string[]; good: string[] }> = {
  'index-without-concurrently': {
    bad: ['create index users_x_idx on users (x);', 'create unique index if not exists users_x_key on public.users using btree (lower(x));', 'create index on only users (x)'],
    good: [`${OUTSIDE}create index concurrently if not exists users_x_idx on users (x);`, 'create table t (a int); create index t_a_idx on t (a);'],
  },
  'drop-index-without-concurrently': {
    bad: ['drop index users_x_idx;', 'drop index if exists users_x_idx'],
    good: [`${OUTSIDE}drop index concurrently if exists users_x_idx;`],
  },
  'reindex-without-concurrently': {
    bad: ['reindex index users_x_idx', 'reindex table users'],
    good: [`${OUTSIDE}reindex index concurrently users_x_idx;`],
  },
  'concurrently-in-transaction': {
    bad: ['create index concurrently if not exists users_x_idx on users (x);', '-- a comment first\n-- migrate: no-transaction\ndrop index concurrently if exists users_x_idx'],
    good: [`${OUTSIDE}create index concurrently if not exists users_x_idx on users (x);`, `  -- MIGRATE:   no-transaction  \ndrop index concurrently if exists users_x_idx;`],
  },
  'not-rerunnable-outside-transaction': {
    bad: [
      `${OUTSIDE}create index concurrently users_x_idx on users (x);`,
      `${OUTSIDE}create index concurrently if not exists users_x_idx on users (x); alter table users add column y int;`,
    ],
    good: [`${OUTSIDE}create unique index concurrently if not exists users_x_key on users (x);\nanalyze users;\nalter table users validate constraint users_x_check;`],
  },
  'volatile-default': {
    bad: [
      'alter table users add column token uuid default gen_random_uuid();',
      'alter table users add x timestamptz not null default clock_timestamp()',
      'alter table users add column n bigserial',
      'alter table users add column y int generated always as (id * 2) stored',
      'alter table users add column z int generated always as identity',
      'alter table users add column a int, add column r float8 default random()',
    ],
    good: [
      'alter table users add column flag boolean not null default false;',
      "alter table users add column seen_at timestamptz default now(), add column note text default 'random()';",
      'alter table users alter column token set default gen_random_uuid();',
      'create table t (id bigserial primary key, token uuid default gen_random_uuid());',
    ],
  },
  'column-type-change': {
    bad: ['alter table users alter column phone_number type varchar(40);', 'alter table users alter phone_number set data type text using phone_number::text'],
    good: ['alter table users add column phone text;', 'create table t (a int); alter table t alter column a type bigint;'],
  },
  'table-rewrite': {
    bad: ['alter table users set unlogged', 'alter table users set tablespace fast'],
    good: ['alter table users set (fillfactor = 90)'],
  },
  'set-not-null-without-check': {
    bad: ['alter table users alter column phone_number set not null;'],
    good: [
      'alter table users add constraint users_phone_number_not_null check (phone_number is not null) not valid;',
      'alter table users validate constraint users_phone_number_not_null;\nalter table users alter column phone_number set not null;\nalter table users drop constraint users_phone_number_not_null;',
    ],
  },
  'constraint-without-not-valid': {
    bad: [
      'alter table services add constraint services_x_fkey foreign key (x) references users (id);',
      'alter table users add constraint users_age_check check (age > 0)',
      'alter table users add check (age > 0)',
      'alter table services add column x bigint references users (id) on delete set null',
      'alter table users add column age int check (age > 0)',
    ],
    good: [
      'alter table services add column x bigint;\nalter table services add constraint services_x_fkey foreign key (x) references users (id) on delete set null not valid;',
      'alter table users add constraint users_age_check check (age > 0) not valid',
      'create table t (a int); alter table t add constraint t_a_check check (a > 0);',
    ],
  },
  'unique-without-index': {
    bad: ['alter table users add constraint users_phone_key unique (phone_number)', 'alter table users add column code text unique', 'alter table users add primary key (id)'],
    good: ['alter table users add constraint users_phone_key unique using index users_phone_key'],
  },
  'validate-in-same-transaction': {
    bad: ['alter table services add constraint services_x_fkey foreign key (x) references users (id) not valid;\nalter table services validate constraint services_x_fkey;'],
    good: ['alter table services validate constraint services_x_fkey;'],
  },
  'vacuum-full': { bad: ['vacuum full users', 'vacuum (full, analyze) users'], good: ['analyze users'] },
  cluster: { bad: ['cluster users using users_pkey'], good: ['analyze users'] },
  'lock-table': { bad: ['lock table users in access exclusive mode', 'lock users'], good: ['select 1'] },
  'refresh-without-concurrently': { bad: ['refresh materialized view user_stats'], good: ['refresh materialized view concurrently user_stats'] },
};

describe('migration rules (ADR 060)', () => {
  it('has bad and good fixtures for every rule', () => {
    expect(Object.keys(FIXTURES).sort()).toEqual(Object.keys(RULES).sort());
    for (const { bad, good } of Object.values(FIXTURES)) expect(bad.length * good.length).toBeGreaterThan(0);
  });

  it.each(Object.entries(FIXTURES).flatMap(([rule, { bad }]) => bad.map((sql) => [rule, sql] as const)))('%s catches: %s', (rule, sql) => {
    const findings = checkMigration(sql);
    expect(findings.map((f) => f.rule)).toContain(rule);
    // It tells the author what to write instead.
    expect(findings.find((f) => f.rule === rule)!.message).toBe(RULES[rule as RuleId].instead);
  });

  it.each(Object.entries(FIXTURES).flatMap(([rule, { good }]) => good.map((sql) => [rule, sql] as const)))('%s passes what it says instead: %s', (_rule, sql) => {
    expect(checkMigration(sql)).toEqual([]);
  });

  it('reads statements, not text: comments, strings and function bodies say nothing', () => {
    const sql = `-- create index x on users (a);
      /* lock table users; /* nested */ vacuum full users; */
      select 'create index y on users (b); lock table users';
      create function f() returns void language plpgsql as $body$ begin execute 'vacuum full users'; end $body$;
      select E'it\\'s; cluster users', "lock users";`;
    expect(checkMigration(sql)).toEqual([]);
    expect(splitStatements(sql).map((s) => s.words)).toEqual(["select ''", 'create function f() returns void language plpgsql as $$$$', `select e'', "lock users"`]);
  });

  it('takes the no-transaction marker from the first line only', () => {
    expect(runsOutsideTransaction('-- migrate: no-transaction\ncreate index concurrently if not exists a on b (c);')).toBe(true);
    expect(runsOutsideTransaction('\n-- migrate: no-transaction\n')).toBe(false);
    expect(runsOutsideTransaction('-- migrate: no-transaction, please\n')).toBe(false);
  });
});

describe('the migrations (ADR 060)', () => {
  const files = readdirSync(migrationsDir())
    .filter((f) => f.endsWith('.sql'))
    .sort();

  it('break no rule, but for the reviewed exceptions of files applied before the rules', () => {
    const problems: string[] = [];
    for (const file of files) {
      const findings = checkMigration(readFileSync(join(migrationsDir(), file), 'utf8'));
      const allowed = EXCEPTIONS[file]?.findings ?? {};
      const counted: Partial<Record<RuleId, number>> = {};
      for (const finding of findings) {
        counted[finding.rule] = (counted[finding.rule] ?? 0) + 1;
        if (counted[finding.rule]! > (allowed[finding.rule] ?? 0)) problems.push(`${file}: ${finding.rule}\n  ${finding.statement.slice(0, 200)}\n  instead: ${finding.message}`);
      }
      // An exception nothing needs any more goes (the list says what is really there).
      for (const [rule, count] of Object.entries(allowed))
        if ((counted[rule as RuleId] ?? 0) < count) problems.push(`${file}: the exception for ${rule} (${count}) is more than the file needs`);
    }
    expect(problems.join('\n\n')).toBe('');
  });

  it('lists exceptions only for files applied before the rules, each with its reason', () => {
    for (const [file, { reason }] of Object.entries(EXCEPTIONS)) {
      expect(file < '093', file).toBe(true);
      expect(files).toContain(file);
      expect(reason.length).toBeGreaterThan(20);
    }
  });
});
