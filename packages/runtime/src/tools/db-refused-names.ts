/**
 * Names db_query refuses in a statement's text before it reaches the database. Every db_query call of
 * a deployment connects as the same role, so whatever that role may see or signal of its own sessions,
 * one model session could do to another's: read its SQL (pg_stat_activity and the functions under it)
 * or end it (pg_cancel_backend, pg_terminate_backend). The functions that run SQL given as a string or
 * read a relation named by a string (query_to_xml and its family, ts_stat, dblink) would hide those
 * names, and so would Unicode-escaped identifiers (U&"…"): they are refused too.
 *
 * A `DO` block is refused whatever it names: PL/pgSQL's EXECUTE runs SQL built from strings, so it
 * could spell any refused name in pieces, and its RAISE carries what it read back in the error.
 *
 * This is a tripwire in front of the guarantee, not the guarantee: the role's grants are, and
 * db-session checks them before every statement (docs/tools.md, db_query). A name is matched
 * case-insensitively as a whole word, quoted or not.
 */
const REFUSED: { pattern: RegExp; why: string }[] = [
  { pattern: /pg_stat_activity|pg_stat_get_activity|pg_stat_get_backend_\w+|pg_stat_statements\w*/, why: "shows other sessions' SQL" },
  { pattern: /pg_cancel_backend|pg_terminate_backend/, why: "cancels or ends other sessions' statements" },
  { pattern: /(?:query|table|cursor|schema|database)_to_xml(?:schema|_and_xmlschema)?|ts_stat|dblink\w*/, why: 'runs SQL or reads a relation named in a string' },
];
const UNICODE_IDENTIFIER = /u&"/i;

/** Why db_query refuses `sql` without running it, naming what it refused; undefined when nothing is refused. */
export function refusedStatement(sql: string): string | undefined {
  if (leadingWord(sql) === 'do') {
    return 'db_query does not run DO blocks (their EXECUTE runs SQL built from strings, which no name check can see): write the statement itself';
  }
  if (UNICODE_IDENTIFIER.test(sql)) return 'db_query does not run statements with Unicode-escaped identifiers (U&"…"): write the name itself';
  const text = sql.toLowerCase();
  for (const { pattern, why } of REFUSED) {
    const found = new RegExp(`(?<![a-z0-9_$])(?:${pattern.source})(?![a-z0-9_$])`).exec(text);
    if (found) return `db_query does not run statements that use ${found[0]} (it ${why}; the operator's role grants keep it out of reach as well)`;
  }
  return undefined;
}

/** The statement's first word, lowercased, after whitespace and comments (line comments, nested block comments); '' when none. */
function leadingWord(sql: string): string {
  let i = 0;
  while (i < sql.length) {
    if (/\s/.test(sql[i]!)) {
      i++;
    } else if (sql.startsWith('--', i)) {
      const end = sql.slice(i).search(/[\r\n]/);
      i = end < 0 ? sql.length : i + end + 1;
    } else if (sql.startsWith('/*', i)) {
      // PostgreSQL's block comments nest.
      let depth = 0;
      do {
        if (sql.startsWith('/*', i)) {
          depth++;
          i += 2;
        } else if (sql.startsWith('*/', i)) {
          depth--;
          i += 2;
        } else {
          i++;
        }
      } while (depth > 0 && i < sql.length);
    } else {
      break;
    }
  }
  return /^[a-z_]\w*/i.exec(sql.slice(i))?.[0].toLowerCase() ?? '';
}
