import pg from 'pg';
import Cursor from 'pg-cursor';
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
      OR pg_has_role(current_user, 'pg_read_server_files', 'USAGE') AS privileged
    FROM pg_roles r WHERE r.rolname = current_user`;

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
    return await runStatement(client, query, limits, scrub);
  } catch (error) {
    return { content: scrub(`database "${query.name}": ${statementFailure(error)}`), is_error: true };
  } finally {
    query.signal.removeEventListener('abort', onAbort);
    await client.query('ROLLBACK').catch(() => undefined);
    await client.end().catch(() => undefined);
  }
}

async function runStatement(client: pg.Client, query: ReadOnlyQuery, limits: DbQueryLimits, scrub: (text: string) => string): Promise<ToolOutput> {
  const started = Date.now();
  // A cursor speaks the extended query protocol: PostgreSQL refuses a second statement in it ("cannot insert multiple commands into a prepared statement").
  const cursor = client.query(new StatementCursor(query.sql, query.params ?? [], { rowMode: 'array', types: asText }));
  const first = await read(cursor, query.maxRows + 1);
  const shown = first.rows.slice(0, query.maxRows);
  let counted = first.rows.length;
  let complete = first.rows.length <= query.maxRows;
  // Counting the rest means reading it; worth it only while it is cheap.
  while (!complete && counted < limits.countLimit && Date.now() - started < limits.countBudgetMs) {
    const batch = await read(cursor, limits.countBatch);
    counted += batch.rows.length;
    complete = batch.rows.length < limits.countBatch;
  }
  await cursor.close();
  const fields = first.result.fields ?? [];
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
  const rows = shown.map((row) => JSON.stringify(row.map((cell) => capCell(cell, limits.maxCellChars))));
  return scrub(
    [
      `database "${query.name}": ${summary}, ${took}. Values are in PostgreSQL's text form, one JSON array per row.`,
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

function capCell(cell: unknown, max: number): unknown {
  return typeof cell === 'string' && cell.length > max ? `${cell.slice(0, max)}… [${cell.length} characters]` : cell;
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
