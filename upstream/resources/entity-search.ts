import type { EntityDef, FieldDef } from '../../shared/entity/define.ts';
import { labelSearchFields, labelFields } from '../../shared/entity/define.ts';
import type { Db } from '../db.ts';
import type { Lang } from '../lib/lang.ts';
import { entityNamed as entityByName } from '../lib/entity-catalogue.ts';
import { seededValuesNamed } from '../lib/seeded-names.ts';
import { cheapestPart, columnSample, containsPattern, emailMayContain, fewTerms, matchingTerms, tableRows, termSource } from '../lib/page-query.ts';
import { labelColumns, labelExpression, labelTemplateOf, referenceTable } from '../lib/record-labels.ts';
import { sqlOf } from './entity-sql-parts.ts';

// The search planner of a list (ADR 050, 052, 054, 056): which rows hold a text, in the forms its statements read.

/** How one search reads a field: the search's pattern parameter, and the parameter of a source's matching terms. */
interface SearchParams {
  search: string;
  pattern: () => string;
  /** The parameter of a source's matching terms; undefined when they are too many to be worth it (`fewTerms`). */
  terms: (source: string) => string | undefined;
  /** The contains-search of `table.column` by a cheaper part of the text (`cheapestPart`), or undefined. */
  byPart: (table: string, column: string, expression: string) => string | undefined;
  /** The contains-search of `expression` through its bigram index (`shortSearch`), for a text too short for a trigram; else undefined. */
  byBigrams: (expression: string) => string | undefined;
  /**
   * The parameter of the seeded values of `entity` whose name on the page contains the search but whose stored
   * value does not (`seededValuesNamed`: "förm" → "morning" on a Swedish page); undefined when there are none.
   */
  seeded: (entity: string) => string | undefined;
}

/**
 * A text field's contains-search over the row `alias` of `table`, or none when no stored value can hold
 * the search. A field whose values repeat is searched by its matching terms and its b-tree on
 * `lower(<field>)` (ADR 050).
 */
function textCondition(table: string, key: string, value: string, field: FieldDef, p: SearchParams): string | undefined {
  if (field.kind === 'email' && !emailMayContain(p.search)) return undefined;
  const terms = field.valuesRepeat ? p.terms(termSource(table, key)) : undefined;
  const lowered = `lower(${value})`;
  if (terms) return `${lowered} = any(${terms}::text[])`;
  return (field.shortSearch ? p.byBigrams(lowered) : undefined) ?? p.byPart(table, key, lowered) ?? `${lowered} like ${p.pattern()}`;
}

/**
 * What a list's search reads of an entity: its searchable fields, then its search expressions (ADR 056), each
 * expression as the searchable single-line text it is searched as.
 */
export function searchedKeys(def: EntityDef): string[] {
  return [...Object.keys(def.fields).filter((k) => def.fields[k]!.searchable), ...Object.keys(def.searchExpressions ?? {})];
}

function searchedField(def: EntityDef, key: string): FieldDef {
  const field = def.fields[key];
  if (field) return field;
  const { valuesRepeat, shortSearch } = def.searchExpressions![key]!;
  return { kind: 'text', searchable: true, ...(valuesRepeat ? { valuesRepeat } : {}), ...(shortSearch ? { shortSearch } : {}) };
}

/**
 * The fields of the referenced entity a reference's label search is split into (`labelSearchFields`,
 * ADR 050), when each is a text never NULL; undefined when the label is searched whole.
 */
function splitLabel(field: FieldDef, search: string, lang: Lang): { target: EntityDef; fields: string[] } | undefined {
  const label = labelTemplateOf(field);
  if (!label) return undefined;
  const { target } = label;
  const fields = labelSearchFields(label.template, search, lang);
  const textual = (key: string) => {
    const f = target.fields[key];
    return f && (f.kind === 'text' || f.kind === 'email' || f.kind === 'phone') && f.required;
  };
  return fields && fields.every(textual) ? { target, fields } : undefined;
}

/**
 * How one searchable field is found, or none when no stored value can contain the search: its own column's
 * condition, or for a reference the condition on the referenced row `r` (`matches`) and the table it reads.
 */
type FieldSearch = { own: string } | { matches: string; table: string; key: string };

function fieldSearch(def: EntityDef, key: string, lang: Lang, p: SearchParams): FieldSearch | undefined {
  const field = searchedField(def, key);
  if (field.kind !== 'reference') {
    const own = textCondition(def.table, key, sqlOf(def.name).searchExpressions?.[key] ?? `t.${key}`, field, p);
    const named = key === SEEDED_FIELD && def.fields[key] ? seededCondition('t', def.name, p) : undefined;
    const either = orOf(own, named);
    return either === undefined ? undefined : { own: either };
  }
  const target = entityByName(field.reference!.entity);
  const named = target?.fields[SEEDED_FIELD] ? seededCondition('r', target.name, p) : undefined;
  const matches = orOf(referenceMatch(field, lang, p), named);
  return matches === undefined ? undefined : { matches, table: referenceTable(field), key };
}

/** The field a catalogue's seeded values are in (ADR 078: "Morning" is a work slot's name). */
const SEEDED_FIELD = 'name';

/**
 * A seeded name as the page shows it finds its stored value (issue 33): the row `alias` of `entity` whose name is one
 * of the seeded values named so on the page ("Förmiddag" on a Swedish page finds "Morning"). The stored text is
 * searched as before; this adds the seeded values only, by their lowered name (`lower(name)`, as the field's own
 * search compares it).
 */
function seededCondition(alias: string, entity: string, p: SearchParams): string | undefined {
  const values = p.seeded(entity);
  return values === undefined ? undefined : `lower(${alias}.${SEEDED_FIELD}) = any(${values}::text[])`;
}

const orOf = (a: string | undefined, b: string | undefined) => (a === undefined ? b : b === undefined ? a : `(${a} or ${b})`);

/**
 * A searchable reference is searched by its label (a bicycle by its owner's e-mail), in one of two forms:
 * - `array`: the matching ids are found first (through the label's index, or its fields' own searches when the
 *   label can be split: ADR 050) and the rows then by their indexed reference column, so PostgreSQL can OR it
 *   with the other columns' indexes instead of scanning every row;
 * - `row`: each row asks its own record through the primary key, for a reference matching many records ("a":
 *   900 000 bicycles), whose array took longer than the statement timeout (ADR 052), or one whose ids no index
 *   can find (a text of two letters: ADR 054) when the page is walked in its order. A scalar subquery, not
 *   `exists`: PostgreSQL would hash every match of an `exists` under an OR first (1 s for 970 000 users), where
 *   a list stops after a page and a capped count.
 */
function searchCondition(f: FieldSearch, form: 'array' | 'row'): string {
  if ('own' in f) return f.own;
  if (form === 'row') return `(select ${f.matches} from ${f.table} r where r.id = t.${f.key})`;
  return `t.${f.key} = any(array(select r.id from ${f.table} r where ${f.matches}))`;
}

/**
 * A field's condition as the first part of a capped count reads it (`ListPageQuery.lead`), and the rows it
 * does not hold: a reference as a semi-join, which PostgreSQL reads from the referenced records' side (the
 * bicycles holding "ab", then their services by `bicycle_id`) and stops when the count has enough.
 */
function leadCondition(f: FieldSearch, row: FieldSearch): { sql: string; not: string } {
  if ('own' in f) return { sql: f.own, not: `(${(row as { own: string }).own}) is not true` };
  return { sql: `t.${f.key} in (select r.id from ${f.table} r where ${f.matches})`, not: `${searchCondition(row, 'row')} is not true` };
}

/** Whether pg_trgm finds no trigram in a contains-search of `search` (no run of three letters or digits): no trigram index can serve it. */
export function withoutTrigram(search: string): boolean {
  return !/[\p{L}\p{N}]{3}/u.test(search);
}

/**
 * The condition on a referenced row `r` that its label contains the search: the label's fields searched
 * each (`splitLabel`), else the label whole; undefined when no stored label can hold the text.
 */
function referenceMatch(field: FieldDef, lang: Lang, p: SearchParams): string | undefined {
  const split = splitLabel(field, p.search, lang);
  if (!split) {
    const label = `lower(${labelExpression(field, lang)})`;
    return (field.reference!.sqlLabel && field.reference!.labelShortSearch ? p.byBigrams(label) : undefined) ?? `${label} like ${p.pattern()}`;
  }
  const table = referenceTable(field);
  const parts = split.fields.map((f) => textCondition(table, f, `r.${f}`, split.target.fields[f]!, p)).filter((c) => c !== undefined);
  return parts.length ? parts.join(' or ') : undefined;
}

/**
 * More referenced records than this matching a reference's label search are too many to list as an array of
 * ids: the search then asks each row's own record. An array is checked one id at a time for every row it is
 * tested on — including each row a trigram index's bitmap hands over for its recheck, about twice as many
 * services as bicycles listed — so its cost grows with the square of its length (40 000 bicycles holding
 * "ab": over 50 s on PGlite). Asked per row, a search pays a lookup for each row it reaches, which only a
 * search matching many rows keeps few (a page walked in order, a capped count): a sample that holds the
 * text once in a hundred values (one repeated model: ~9 000 of 1M bicycles) stays an array.
 */
const WIDE_REFERENCE_MATCHES = 20_000;

/**
 * On a page walked in its sort order, a reference expected to match more records than this is asked per row
 * (ADR 054): an array of ids is checked one id at a time for each row the walk reaches, so 15 000 bicycles
 * holding "grail" cost ~15 000 comparisons a row where a primary-key lookup costs a few microseconds. A short
 * array stays, as cheap as a lookup and cheaper if the walk reaches many rows.
 */
const WALK_ARRAY_MATCHES = 1_000;

/**
 * A reference expected to match more records than this does not lead a capped count (ADR 054): its records come
 * from their index all at once before the first row is counted (62 500 bicycles holding "canyon": 47 ms for the
 * services count; 238 000 users holding "er": 1 s for the bicycles count).
 */
const LEAD_REFERENCE_MATCHES = 100_000;

/**
 * The share of a table's rows past which a column leading a capped count for a short text (ADR 056) is read row by
 * row in table order, by the text's position, rather than from its bigram index. A bigram's posting list comes
 * whole (a bitmap) before the first row is counted: "an", in 38 % of 1M users' e-mails, took 32 ms to list, where
 * reading the users in order met 10 001 holding it after 26 500 rows (15 ms). The index costs a step per match
 * (share × rows), the walk a row read per `bound / share` rows at ~7 times a step's cost (the two measurements
 * above); they cross where share² = 7 × bound / rows: 0.26 for a 10 000 bound over 1M rows.
 */
function leadByPositionShare(bound: number, rows: number): number {
  return Math.sqrt((7 * bound) / Math.max(rows, 1));
}

/**
 * The share of each searchable field's values expected to contain the text: of a sample of its column's values
 * (`columnSample`, the statistics PostgreSQL keeps), for a reference the largest over its label's columns.
 * Both are read at most once per ten minutes, so this costs a statement at most once in ten minutes. It decides
 * only how the rows are found, never which.
 */
async function sampleShares(db: Db, def: EntityDef, searchable: readonly string[], search: string, lang: Lang): Promise<Map<string, number>> {
  const text = search.toLowerCase();
  const share = (values: string[]) => (values.length ? values.filter((v) => v.includes(text)).length / values.length : 0);
  const shares = await Promise.all(
    searchable.map(async (key) => {
      const field = def.fields[key];
      // A search expression has no column whose statistics sample it: it never leads a count.
      if (!field) return 0;
      if (field.kind !== 'reference') return share(await columnSample(db, def.table, key));
      const table = referenceTable(field);
      const samples = await Promise.all(labelColumns(field, lang).map((column) => columnSample(db, table, column)));
      return Math.max(0, ...samples.map(share));
    }),
  );
  return new Map(searchable.map((key, i) => [key, shares[i]!]));
}

/** Samples (`columnSample`) of the text columns a search of these fields reads by a trigram index, by `table.column`. */
async function samplesOf(db: Db, def: EntityDef, searchable: readonly string[]): Promise<Map<string, string[]>> {
  const columns = searchable.flatMap((key): [string, string][] => {
    const field = def.fields[key];
    if (!field) return [];
    if (field.kind !== 'reference') return field.valuesRepeat ? [] : [[def.table, key]];
    const label = labelTemplateOf(field);
    if (!label) return [];
    const { target } = label;
    return labelFields(label.template)
      .filter((f) => target.fields[f] && !target.fields[f]!.valuesRepeat)
      .map((f): [string, string] => [target.table, f]);
  });
  const values = await Promise.all(columns.map(([table, column]) => columnSample(db, table, column)));
  return new Map(columns.map(([table, column], i) => [`${table}.${column}`, values[i]!]));
}

/** The `search_terms` sources a search of these fields may read (its own fields' and its references' labels'). */
function termSourcesOf(def: EntityDef, searchable: readonly string[]): string[] {
  return searchable.flatMap((key) => {
    const field = searchedField(def, key);
    if (field.kind !== 'reference') return field.valuesRepeat ? [termSource(def.table, key)] : [];
    const label = labelTemplateOf(field);
    if (!label) return [];
    const { target } = label;
    return labelFields(label.template)
      .filter((f) => target.fields[f]?.valuesRepeat)
      .map((f) => termSource(target.table, f));
  });
}

/** A list's search in the forms its statements read it (`searchForms`). */
export interface SearchForms {
  /** Each field's contains-search, OR-ed (`false` when no field can hold the text): the planner's estimate and the few-matches way read it. */
  sql: string;
  /**
   * The same rows as a page walked in its sort order reads them (`ListPageQuery.walk`), which meets its page after
   * a few hundred rows: a reference is asked per row when no trigram index can serve the text (listing its
   * matching ids would read its whole table: 1 s for the users' names) or when more than `WALK_ARRAY_MATCHES`
   * of its records are expected to match (an array is checked id by id for every row reached).
   */
  walk: string;
  /**
   * The field expected to hold the most matches, when more than `leadAbove` (`ListPageQuery.lead`): its condition
   * alone, and the rows it does not hold.
   */
  lead?: { sql: string; not: string };
}

/**
 * A list's search over an entity's searchable fields (`t` its row), its parameters appended to `params`:
 * each field's contains-search, OR-ed; `false` when no field can hold the text. The terms of the fields
 * whose values repeat are read first, in one query (ADR 050).
 */
export async function searchClause(
  db: Db,
  def: EntityDef,
  search: string,
  lang: Lang,
  params: unknown[],
  options: { wideAbove?: number; leadAbove?: number } = {},
): Promise<string> {
  return (await searchForms(db, def, search, lang, params, options)).sql;
}

/**
 * How one search's conditions read their parameters (`SearchParams`), appended to `params` as they are first asked
 * for: the conditions of an index (`p`), and those of a row tested by itself (`byPosition`).
 */
function searchParamsOf(
  search: string,
  lang: Lang,
  params: unknown[],
  matched: Map<string, string[]>,
  sampled: Map<string, string[]>,
): { p: SearchParams; byPosition: SearchParams; short: boolean } {
  const pattern = containsPattern(search);
  // Parameters as the conditions ask for them: an unused one has no type PostgreSQL could infer. Each is
  // asked for once, whichever forms read it.
  let patternParam = '';
  let textParam = '';
  // Two characters or more without a trigram: each holds a pair of characters a bigram index can find (ADR 054).
  // Lowered here, as the LIKE's pattern is (`containsPattern`): the pairs are those of the very text the LIKE
  // looks for, so they stay a pre-filter of it where JavaScript and the database lower a letter differently
  // ('Σ' at a word's end, 'İ', any non-ASCII letter under a C locale).
  const lowered = search.toLowerCase();
  const loweredLength = [...lowered].length;
  const short = withoutTrigram(lowered) && loweredLength >= 2;
  // The lowered text itself, for the cheaper part's check and the pairs alike.
  const text = () => textParam || ((textParam = `$${params.push(lowered)}`), textParam);
  // A short text's condition on `expression` from its test (`found`): a text of two characters is its one pair,
  // so holding the pair is holding it; a longer one keeps its LIKE, first.
  const shortCondition = (expression: string, found: string) => (loweredLength === 2 ? found : `(${expression} like ${p.pattern()} and ${found})`);
  const termParams = new Map<string, string>();
  const partParams = new Map<string, string | undefined>();
  const seededParams = new Map<string, string | undefined>();
  const p: SearchParams = {
    search,
    pattern: () => patternParam || ((patternParam = `$${params.push(pattern)}`), patternParam),
    terms: (source) => {
      const terms = fewTerms(matched.get(source));
      return terms && (termParams.get(source) ?? termParams.set(source, `$${params.push(terms)}`).get(source)!);
    },
    byPart: (table, column, expression) => {
      const key = `${table}.${column}:${expression}`;
      if (partParams.has(key)) return partParams.get(key);
      const part = cheapestPart(search, sampled.get(`${table}.${column}`) ?? []);
      if (!part) return partParams.set(key, undefined).get(key);
      return partParams.set(key, `(${expression} like $${params.push(`%${part}%`)} and strpos(${expression}, ${text()}) > 0)`).get(key);
    },
    byBigrams: (expression) => {
      if (!short) return undefined;
      // For two characters, the LIKE beside the pair would have the planner multiply two selectivities of one
      // condition ("ab" in 4 % of the serial numbers estimated at 0.16 %: the few-matches way, then its
      // fallback). A longer text's LIKE comes first: an index scan takes the pairs from the AND all the same.
      return shortCondition(expression, `search_bigrams(${expression}) @> search_bigrams(${text()}::text)`);
    },
    seeded: (entity) => {
      if (seededParams.has(entity)) return seededParams.get(entity);
      const values = seededValuesNamed(entity, lang, search);
      return seededParams.set(entity, values.length ? `$${params.push(values)}` : undefined).get(entity);
    },
  };
  // Tested row by row (a page walked in its order, a record asked per row, the rows a count's lead leaves) a field
  // with a bigram index is read by the position of the lowered text in it: a value's pairs serve the index only,
  // and computing them costs more than finding the text, the longer the value the more (the same rows either way).
  // Every form of one search reads the same parameters (a statement cannot type one it does not read): the
  // lowered text, and for a longer text the pattern its LIKE reads first. Without a short text the forms are one.
  const byPosition: SearchParams = { ...p, byBigrams: (expression) => (short ? shortCondition(expression, `strpos(${expression}, ${text()}) > 0`) : undefined) };
  return { p, byPosition, short };
}

/** A list's search (`searchClause`) in each form its statements read it (`SearchForms`), with the same parameters. */
export async function searchForms(
  db: Db,
  def: EntityDef,
  search: string,
  lang: Lang,
  params: unknown[],
  /**
   * A reference matching more records than `wideAbove` is asked per row (`WIDE_REFERENCE_MATCHES`; tests lower
   * it); a field expected to hold more than `leadAbove` of the rows leads the capped count (the list's exact count's bound).
   */
  options: { wideAbove?: number; leadAbove?: number; walkArrayAbove?: number; leadReferenceUpTo?: number } = {},
): Promise<SearchForms> {
  const searchable = searchedKeys(def);
  const references = searchable.filter((key) => searchedField(def, key).kind === 'reference');
  const [matched, sampled, shares, rows, referencedRows] = await Promise.all([
    matchingTerms(db, termSourcesOf(def, searchable), containsPattern(search)),
    samplesOf(db, def, searchable),
    sampleShares(db, def, searchable, search, lang),
    tableRows(db, def.table),
    Promise.all(references.map((key) => tableRows(db, referenceTable(def.fields[key]!)))),
  ]);
  const wideAbove = options.wideAbove ?? WIDE_REFERENCE_MATCHES;
  // How many referenced records are expected to hold the text (the share of the sample times the referenced table's rows).
  const expected = (key: string) => (references.includes(key) ? shares.get(key)! * referencedRows[references.indexOf(key)]! : 0);
  const wide = new Set(references.filter((key) => expected(key) > wideAbove));
  const { p, byPosition, short } = searchParamsOf(search, lang, params, matched, sampled);
  // The row's own columns first: PostgreSQL tries an OR's terms in the order written, and a column's test
  // costs less than a referenced record's (a text matching the row's address needs no lookup of its bicycle).
  const ordered = [...searchable].sort((a, b) => Number(searchedField(def, a).kind === 'reference') - Number(searchedField(def, b).kind === 'reference'));
  const found = ordered.map((key) => ({ key, search: fieldSearch(def, key, lang, p) })).filter((f) => f.search !== undefined) as { key: string; search: FieldSearch }[];
  if (found.length === 0) return { sql: 'false', walk: 'false' };
  const perRow = new Map(found.map((f) => [f.key, short ? fieldSearch(def, f.key, lang, byPosition)! : f.search]));
  const or = (form: (key: string) => 'array' | 'row') =>
    `(${found.map((f) => (form(f.key) === 'row' ? searchCondition(perRow.get(f.key)!, 'row') : searchCondition(f.search, 'array'))).join(' or ')})`;
  const sql = or((key) => (wide.has(key) ? 'row' : 'array'));
  const noTrigram = withoutTrigram(search);
  const walk = or((key) => (noTrigram || wide.has(key) || expected(key) > (options.walkArrayAbove ?? WALK_ARRAY_MATCHES) ? 'row' : 'array'));
  // The field expected to hold the most rows leads the capped count when it alone should pass its bound.
  const leading = found.reduce((best, f) => (shares.get(f.key)! > shares.get(best.key)! ? f : best));
  // A reference leads from its records' side only while they are not too many to list first: an index can hand
  // them over only all at once (a bitmap), and 238 000 users holding "er" took a bicycles count 1 s, where the
  // rows read in table order, each asking its owner, reach the bound after ~40 000.
  const lead =
    options.leadAbove !== undefined &&
    found.length > 1 &&
    shares.get(leading.key)! * rows > options.leadAbove &&
    expected(leading.key) <= (options.leadReferenceUpTo ?? LEAD_REFERENCE_MATCHES)
      ? leadCondition(
          short && 'own' in leading.search && shares.get(leading.key)! > leadByPositionShare(options.leadAbove, rows) ? perRow.get(leading.key)! : leading.search,
          perRow.get(leading.key)!,
        )
      : undefined;
  return { sql, walk, ...(lead ? { lead } : {}) };
}
