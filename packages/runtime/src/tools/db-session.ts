import pg from 'pg';
import Cursor from 'pg-cursor';
import { ReceivedBytesGuard } from './db-byte-guard';
import type { DbQueryLimits } from './db-query';
import type { ToolOutput } from './tool';

/** One db_query call: which database, the statement, and how many rows to show. */
export interface ReadOnlyQuery {
  name: string;
  connectionString: string;
  sql: string;
  params?: (string | number | boolean | null)[];
  maxRows: number;
  signal: AbortSignal;
}

/** Every value as PostgreSQL prints it (as psql shows it): no time-zone shifts, no lost int8 precision. */
const asText = { getTypeParser: () => (value: string) => value };

/**
 * Roles that can reach the server's files or programs: `COPY … TO PROGRAM` and `COPY … TO '/file'`
 * are allowed inside a READ ONLY transaction, so such a role could write despite it.
 */
const PRIVILEGED_ROLE = `
  SELECT r.rolsuper
      OR pg_has_role(current_user, 'pg_write_server_files', 'USAGE')
      OR pg_has_role(current_user, 'pg_execute_server_program', 'USAGE')
      OR pg_has_role(current_user, 'pg_read_server_files', 'USAGE') AS privileged,
         pg_has_role(current_user, 'pg_read_all_stats', 'USAGE') OR pg_has_role(current_user, 'pg_signal_backend', 'USAGE') AS watches_others
    FROM pg_roles r WHERE r.rolname = current_user`;

/**
 * What of the views and functions that show or signal other sessions the role may still use. Every
 * db_query call connects as the same role, and any role sees its own other sessions' SQL in
 * pg_stat_activity and may cancel or end them; PostgreSQL grants all of these to PUBLIC. So the
 * role is checked for the privileges themselves (not for whether some other session happens to be
 * visible now), and refused until the operator revokes them (docs/tools.md, db_query). A function missing
 * from this server's version (or pg_stat_statements, when the extension is not installed) counts as not usable.
 */
const SESSION_REACH = `
  SELECT name FROM (VALUES
      ('pg_stat_activity', has_table_privilege('pg_catalog.pg_stat_activity', 'SELECT')),
      ('pg_stat_get_activity', coalesce(has_function_privilege(to_regprocedure('pg_catalog.pg_stat_get_activity(integer)'), 'EXECUTE'), false)),
      ('pg_stat_get_backend_activity', coalesce(has_function_privilege(to_regprocedure('pg_catalog.pg_stat_get_backend_activity(integer)'), 'EXECUTE'), false)),
      ('pg_cancel_backend', coalesce(has_function_privilege(to_regprocedure('pg_catalog.pg_cancel_backend(integer)'), 'EXECUTE'), false)),
      ('pg_terminate_backend', coalesce(has_function_privilege(to_regprocedure('pg_catalog.pg_terminate_backend(integer, bigint)'), 'EXECUTE'), false)
         OR coalesce(has_function_privilege(to_regprocedure('pg_catalog.pg_terminate_backend(integer)'), 'EXECUTE'), false)),
      ('pg_stat_statements', EXISTS (SELECT 1 FROM pg_catalog.pg_class c WHERE c.relname = 'pg_stat_statements' AND has_table_privilege(c.oid, 'SELECT')))
    ) AS reach(name, usable)
   WHERE usable`;

/** Bytes a row's messages may take beyond its values (the message header, a length per value). */
const ROW_FRAMING_BYTES = 16;
/** Bytes kept back from the result's budget for what follows the rows (the column types, the rollback). */
const RESULT_RESERVE_BYTES = 64 * 1024;

/** The columns a statement returns, as PostgreSQL describes them without running it. */
type Described = pg.FieldDef[];

/**
 * Parses a statement and describes its result without running it (Parse, Describe, Sync): no rows are
 * read, nothing is executed. Resolves with its columns ([] for a statement that returns none); rejects
 * with PostgreSQL's error, e.g. for a syntax error or a second statement.
 */
class StatementDescription {
  private fields: Described = [];
  constructor(
    private readonly text: string,
    private readonly done: (error: Error | null, fields: Described) => void,
  ) {}
  submit(connection: { parse(query: { text: string }): void; describe(message: { type: string; name: string }): void; sync(): void }) {
    connection.parse({ text: this.text });
    connection.describe({ type: 'S', name: '' });
    connection.sync();
  }
  handleRowDescription(message: { fields: Described }) {
    this.fields = message.fields;
  }
  handleReadyForQuery() {
    this.done(null, this.fields);
  }
  handleError(error: Error) {
    this.done(error, []);
  }
  handleDataRow() {}
  handleCommandComplete() {}
  handleEmptyQuery() {}
  handlePortalSuspended() {}
}

function describe(client: pg.Client, text: string): Promise<Described> {
  return new Promise((resolve, reject) => void client.query(new StatementDescription(text, (error, fields) => (error ? reject(error) : resolve(fields))) as never));
}

/**
 * The statement wrapped so that PostgreSQL itself cuts every value before sending it: each value in
 * its text form, as `v<value>` when it has at most `chars` characters, else `c<bytes>:<first chars>`.
 * The text is safe to wrap because PostgreSQL parsed it alone as one statement: its parentheses,
 * quotes and comments are balanced, so it cannot close the wrapper's parenthesis and add a column.
 * OFFSET 0 keeps PostgreSQL from computing a column again for each use of it.
 */
function cutOnServer(sql: string, columns: number, chars: number): string {
  const names = Array.from({ length: columns }, (_, i) => `c${i + 1}`);
  const texts = names.map((c) => `s.${c}::text AS ${c}`).join(', ');
  // octet_length reads a text's header, and left() only its first characters: no value is scanned whole.
  const cut = names.map(
    (c) => `CASE WHEN octet_length(t.${c}) <= ${chars} OR char_length(left(t.${c}, ${chars + 1})) <= ${chars} THEN 'v' || t.${c} ELSE 'c' || octet_length(t.${c}) || ':' || left(t.${c}, ${chars}) END`,
  );
  return `SELECT ${cut.join(', ')} FROM (SELECT ${texts} FROM (\n${sql}\n) AS s(${names.join(', ')}) OFFSET 0) AS t`;
}

/** The statement as it runs: its own text, or the text wrapped by cutOnServer when it can be. */
interface PlannedStatement {
  text: string;
  columns: Described;
  /** Characters kept of each value when PostgreSQL cuts them; undefined when the statement could not be wrapped. */
  cutAt?: number;
}

/** A cursor that cannot be stalled or crashed by COPY: pg-cursor has no handlers for its messages. */
class StatementCursor extends Cursor<unknown[]> {
  handleCopyInResponse(connection: { sendCopyFail(message: string): void }) {
    connection.sendCopyFail('db_query sends no COPY data');
  }
  handleCopyData() {}
}

/**
 * Runs the statement in a READ ONLY transaction that is always rolled back, and reports the rows,
 * or a failure that names no credential. Must not throw.
 */
export async function runReadOnly(query: ReadOnlyQuery, limits: DbQueryLimits): Promise<ToolOutput> {
  let client: pg.Client;
  try {
    client = new pg.Client({ connectionString: query.connectionString, connectionTimeoutMillis: limits.connectTimeoutMs, application_name: 'zero db_query', types: asText });
  } catch {
    return { content: `database "${query.name}": its connection string (ZERO_DB_${query.name.toUpperCase()}) is not one PostgreSQL accepts; tell the operator.`, is_error: true };
  }
  const scrub = credentialScrubber(query.connectionString, client);
  const guard = new ReceivedBytesGuard(client, limits.maxResultBytes);
  // A dead server or a lost socket surfaces here as well as in the pending call; the call reports it.
  client.on('error', () => undefined);
  const onAbort = () => void client.end().catch(() => undefined);
  query.signal.addEventListener('abort', onAbort, { once: true });
  try {
    try {
      await client.connect();
    } catch (error) {
      return { content: `Could not connect to database "${query.name}": ${connectionFailure(error)}.`, is_error: true };
    }
    const planned = await plan(client, query.sql, limits);
    // READ ONLY from the first command; SELECT takes the snapshot, after which the mode can no longer be changed.
    await client.query(`BEGIN TRANSACTION READ ONLY; SET LOCAL statement_timeout = ${Math.round(limits.statementTimeoutMs)}; SET LOCAL idle_in_transaction_session_timeout = '60s'`);
    const role = await client.query(PRIVILEGED_ROLE);
    if (role.rows[0]?.privileged !== 'f') {
      return {
        content:
          `database "${query.name}": db_query does not run as a role that can write the server's files or run programs there (a superuser, ` +
          'pg_write_server_files, pg_execute_server_program, pg_read_server_files): the operator should give it a role with read grants only.',
        is_error: true,
      };
    }
    if (role.rows[0]?.watches_others !== 'f') {
      return {
        content:
          `database "${query.name}": db_query does not run as a role that can read other sessions' statements or cancel them (pg_read_all_stats, ` +
          'pg_signal_backend, pg_monitor): the operator should give it a role with read grants only.',
        is_error: true,
      };
    }
    const reach = (await client.query(SESSION_REACH)).rows.map((row) => String(row.name));
    if (reach.length) {
      return {
        content:
          `database "${query.name}": db_query does not run as a role that can read or end other db_query sessions' statements, and this role may use ` +
          `${reach.join(', ')} (PostgreSQL grants them to every role). The operator should revoke them from PUBLIC in this database (docs/tools.md, db_query).`,
        is_error: true,
      };
    }
    return await runStatement(client, query, planned, limits, guard, scrub);
  } catch (error) {
    if (guard.tripped) {
      return {
        content:
          `database "${query.name}": the statement's results passed ${formatBytes(limits.maxResultBytes)} while being read, so db_query stopped reading and ` +
          'closed the connection (nothing that large is read whole). Ask for less: fewer rows or columns, or cut long values with left(…).',
        is_error: true,
      };
    }
    return { content: scrub(`database "${query.name}": ${statementFailure(error)}`), is_error: true };
  } finally {
    query.signal.removeEventListener('abort', onAbort);
    await client.query('ROLLBACK').catch(() => undefined);
    await client.end().catch(() => undefined);
  }
}

/**
 * Parses the statement alone, then plans how it runs: wrapped by cutOnServer when it returns columns and
 * PostgreSQL accepts it wrapped (a SELECT, VALUES, TABLE or WITH … SELECT); as it is otherwise (EXPLAIN,
 * SHOW, CALL, a statement that returns no rows), bounded by the received-bytes guard alone.
 */
async function plan(client: pg.Client, sql: string, limits: DbQueryLimits): Promise<PlannedStatement> {
  // A terminating semicolon would end the statement inside the wrapper's parentheses.
  const text = sql.replace(/[\s;]+$/, '') || sql;
  const columns = await describe(client, text);
  if (!columns.length) return { text: sql, columns };
  const cutAt = Math.max(1, Math.min(limits.maxCellChars, Math.floor(limits.maxRowChars / columns.length)));
  const wrapped = cutOnServer(text, columns.length, cutAt);
  const wraps = await describe(client, wrapped).then(
    () => true,
    () => false,
  );
  return wraps ? { text: wrapped, columns, cutAt } : { text: sql, columns };
}

async function runStatement(
  client: pg.Client,
  query: ReadOnlyQuery,
  planned: PlannedStatement,
  limits: DbQueryLimits,
  guard: ReceivedBytesGuard,
  scrub: (text: string) => string,
): Promise<ToolOutput> {
  const started = Date.now();
  // A cursor speaks the extended query protocol: PostgreSQL refuses a second statement in it ("cannot insert multiple commands into a prepared statement").
  const cursor = client.query(new StatementCursor(planned.text, query.params ?? [], { rowMode: 'array', types: asText }));
  const first = await read(cursor, query.maxRows + 1);
  const shown = first.rows.slice(0, query.maxRows);
  let counted = first.rows.length;
  let complete = first.rows.length <= query.maxRows;
  // Counting the rest means reading it; worth it only while it is cheap, and only as far as the rows
  // surely fit in the result's byte budget (a cut row's size is known; an uncut one's is the guard's).
  const rowBytes = planned.cutAt === undefined ? 0 : planned.columns.length * (planned.cutAt * 4 + ROW_FRAMING_BYTES) + ROW_FRAMING_BYTES;
  const fits = (rows: number) => (rowBytes ? Math.min(rows, Math.floor((guard.remaining - RESULT_RESERVE_BYTES) / rowBytes)) : rows);
  while (!complete && counted < limits.countLimit && Date.now() - started < limits.countBudgetMs && fits(limits.countBatch) > 0) {
    const batch = fits(limits.countBatch);
    const more = await read(cursor, batch);
    counted += more.rows.length;
    complete = more.rows.length < batch;
  }
  await cursor.close();
  const fields = planned.columns;
  const types = fields.length
    ? (
        await client.query(
          'SELECT format_type(t, NULLIF(m, -1)) AS type FROM unnest($1::oid[], $2::int4[]) WITH ORDINALITY AS f(t, m, i) ORDER BY i',
          [fields.map((f) => f.dataTypeID), fields.map((f) => f.dataTypeModifier)],
        )
      ).rows.map((row) => String(row.type))
    : [];
  const columns = fields.map((field, i) => ({ name: field.name, type: types[i] ?? `oid ${field.dataTypeID}` }));
  const took = `in ${Date.now() - started} ms; the transaction was read-only and rolled back`;
  if (!fields.length) {
    const tag = [first.result.command, first.result.rowCount].filter((part) => part !== null && part !== undefined).join(' ');
    return scrub(`database "${query.name}": the statement returned no rows (command tag: ${tag || 'none'}), ${took}.`);
  }
  const summary = complete
    ? counted > shown.length
      ? `${shown.length} of ${counted} rows shown`
      : `${counted} row${counted === 1 ? '' : 's'}`
    : `${shown.length} rows shown of more than ${counted} (not counted further)`;
  let cut = 0;
  const cell = (value: unknown): unknown => {
    const [shownValue, wasCut] = planned.cutAt === undefined ? capCell(value, limits.maxCellChars) : uncut(value);
    if (wasCut) cut++;
    return shownValue;
  };
  const rows = shown.map((row) => JSON.stringify(row.map(cell)));
  const cutAt = planned.cutAt ?? limits.maxCellChars;
  const cutNote = cut ? ` ${cut} value${cut === 1 ? ' was' : 's were'} cut at ${cutAt} characters, each marked "… [N bytes; cut at ${cutAt} characters]".` : '';
  return scrub(
    [
      `database "${query.name}": ${summary}, ${took}. Values are in PostgreSQL's text form, one JSON array per row.${cutNote}`,
      `columns: ${JSON.stringify(columns)}`,
      'rows:',
      ...rows,
    ].join('\n'),
  );
}

/** One read from the cursor, with the result (fields, command tag) pg-cursor keeps beside the rows. */
function read(cursor: StatementCursor, rows: number): Promise<{ rows: unknown[][]; result: pg.QueryResult }> {
  return new Promise((resolve, reject) => cursor.read(rows, (error, read, result) => (error ? reject(error) : resolve({ rows: read, result }))));
}

/** A value cutOnServer sent: `v<value>` as it is, `c<bytes>:<first characters>` marked as cut. */
function uncut(cell: unknown): [value: unknown, cut: boolean] {
  if (typeof cell !== 'string') return [cell, false];
  if (cell.startsWith('v')) return [cell.slice(1), false];
  const colon = cell.indexOf(':');
  const prefix = cell.slice(colon + 1);
  return [`${prefix}… [${cell.slice(1, colon)} bytes; cut at ${[...prefix].length} characters]`, true];
}

/** A value of a statement that could not be wrapped, cut here (the received-bytes guard bounded its size). */
function capCell(cell: unknown, max: number): [value: unknown, cut: boolean] {
  return typeof cell === 'string' && cell.length > max ? [`${cell.slice(0, max)}… [${Buffer.byteLength(cell)} bytes; cut at ${max} characters]`, true] : [cell, false];
}

function formatBytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB` : `${Math.round(bytes / 1024)} KB`;
}

/** Why a connection failed, in words that name no host, user or password. */
function connectionFailure(error: unknown): string {
  const code = (error as { code?: string }).code;
  const message = error instanceof Error ? error.message : '';
  switch (code) {
    case '28P01':
    case '28000':
      return 'the server refused the credentials';
    case '3D000':
      return 'the database named in the connection string does not exist';
    case '53300':
      return 'the server has too many connections';
    case '57P03':
      return 'the server is starting up or shutting down';
    case 'ECONNREFUSED':
      return 'the server refused the connection';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'the host name did not resolve';
    case 'ETIMEDOUT':
      return 'the connection timed out';
    case 'ENOENT':
      return 'no server listens at the configured socket';
  }
  if (/timeout/i.test(message)) return 'the connection timed out';
  if (/ssl|tls|certificate/i.test(message)) return 'the TLS handshake failed';
  return `the connection failed${code ? ` (${code})` : ''}`;
}

/** A statement's failure as PostgreSQL reports it (message, SQLSTATE, position, detail, hint). */
function statementFailure(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const e = error as Error & { code?: string; position?: string; detail?: string; hint?: string };
  if (!e.code || !/^[0-9A-Z]{5}$/.test(e.code)) return /terminated|ended|closed/i.test(e.message) ? 'the connection ended before the statement finished' : e.message;
  const why = e.code === '57014' ? ' (it ran past the time limit, or was cancelled)' : '';
  return [
    `the statement failed: ${e.message}${why} [SQLSTATE ${e.code}]`,
    e.position ? `at character ${e.position}` : '',
    e.detail ? `detail: ${e.detail}` : '',
    e.hint ? `hint: ${e.hint}` : '',
  ]
    .filter(Boolean)
    .join('; ');
}

/** Removes the connection string and its password from text a result or an error carries. */
function credentialScrubber(connectionString: string, client: pg.Client): (text: string) => string {
  const password = typeof client.password === 'string' ? client.password : '';
  const secrets = [connectionString, password, password && encodeURIComponent(password)].filter((s) => s.length > 0).sort((a, b) => b.length - a.length);
  return (text) => secrets.reduce((out, secret) => out.split(secret).join('[credential]'), text);
}
