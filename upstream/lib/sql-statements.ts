/**
 * A migration file's statements, one by one (ADR 060): a migration that runs outside a transaction sends them
 * separately (PostgreSQL runs the statements of one query string in one implicit transaction, which
 * `create index concurrently` refuses), and the migration rules read each statement's words.
 */
export interface SqlStatement {
  /** The statement as written, comments included, without its semicolon. */
  text: string;
  /**
   * Its words for reading rules: comments removed, the contents of strings and dollar-quoted bodies emptied
   * (`''`, `$$$$`), white space one blank, lower case (quoted names too).
   */
  words: string;
}

/** Where the quoted or commented part starting at `i` ends (the index after it), or -1 if none starts there. */
function skipQuoted(sql: string, i: number): number {
  const two = sql.slice(i, i + 2);
  if (two === '--') {
    const end = sql.indexOf('\n', i);
    return end < 0 ? sql.length : end;
  }
  if (two === '/*') {
    // Block comments nest in PostgreSQL.
    let depth = 0;
    for (let j = i; j < sql.length;) {
      if (sql.startsWith('/*', j)) {
        depth++;
        j += 2;
      } else if (sql.startsWith('*/', j)) {
        j += 2;
        if (--depth === 0) return j;
      } else j++;
    }
    return sql.length;
  }
  const c = sql[i];
  if (c === "'" || c === '"') {
    // E'…' strings escape with a backslash; every form doubles its quote.
    const backslash = c === "'" && /[eE]$/.test(sql.slice(Math.max(0, i - 1), i)) && !/\w/.test(sql[i - 2] ?? '');
    for (let j = i + 1; j < sql.length; j++) {
      if (backslash && sql[j] === '\\') j++;
      else if (sql[j] === c) {
        if (sql[j + 1] === c) j++;
        else return j + 1;
      }
    }
    return sql.length;
  }
  if (c === '$') {
    const tag = /^\$([A-Za-z_][A-Za-z_0-9]*)?\$/.exec(sql.slice(i));
    if (!tag || /\w/.test(sql[i - 1] ?? '')) return -1;
    const end = sql.indexOf(tag[0], i + tag[0].length);
    return end < 0 ? sql.length : end + tag[0].length;
  }
  return -1;
}

/** The emptied form of a quoted part, as `SqlStatement.words` shows it. */
function emptied(part: string): string {
  if (part.startsWith('--') || part.startsWith('/*')) return ' ';
  if (part.startsWith('$')) return '$$$$';
  return part.startsWith('"') ? part : "''";
}

/** Splits SQL into its statements at the semicolons outside strings, quoted names, comments and dollar quotes. */
export function splitStatements(sql: string): SqlStatement[] {
  const statements: SqlStatement[] = [];
  let start = 0;
  let words = '';
  const close = (end: number) => {
    const text = sql.slice(start, end).trim();
    const plain = words.replace(/\s+/g, ' ').trim().toLowerCase();
    if (plain) statements.push({ text, words: plain });
    start = end + 1;
    words = '';
  };
  for (let i = 0; i < sql.length;) {
    const end = skipQuoted(sql, i);
    if (end >= 0) {
      words += emptied(sql.slice(i, end));
      i = end;
    } else if (sql[i] === ';') {
      close(i);
      i++;
    } else words += sql[i++];
  }
  close(sql.length);
  return statements;
}

/** The first line that marks a migration to be run outside a transaction (ADR 060). */
export const NO_TRANSACTION_MARKER = '-- migrate: no-transaction';

/** Whether the file starts (its first line) with the no-transaction marker. */
export function runsOutsideTransaction(sql: string): boolean {
  return (sql.split('\n', 1)[0] ?? '').trim().toLowerCase().replace(/\s+/g, ' ') === NO_TRANSACTION_MARKER;
}
