import * as z from 'zod';
import { refusedStatement } from './db-refused-names';
import { defineTool, type ToolSpec } from './tool';

/** `ZERO_DB_<NAME>`: a PostgreSQL connection string the operator names; the model picks it by `<name>`. */
const DATABASE_VARIABLE = /^ZERO_DB_([A-Z0-9_]+)$/;
const MAX_ROWS = 100;
/** Rows read past the ones shown to give a total; beyond this (or COUNT_BUDGET_MS) the total is "more than". */
const COUNT_LIMIT = 10_000;
const COUNT_BUDGET_MS = 2_000;
const COUNT_BATCH = 1_000;
const STATEMENT_TIMEOUT_S = 10;
const CONNECT_TIMEOUT_MS = 5_000;
const MAX_CELL_CHARS = 2_000;
/** A row's values share this many characters: a row of many columns has each cut shorter. */
const MAX_ROW_CHARS = 16_000;
/** Every byte the connection receives for one call (rows, errors, notices); past it the connection is ended. */
const MAX_RESULT_BYTES = 16 * 1024 * 1024;

/** The limits db-session.ts enforces, here beside the description that promises them (tests shorten them). */
const DEFAULT_LIMITS = {
  statementTimeoutMs: STATEMENT_TIMEOUT_S * 1000,
  connectTimeoutMs: CONNECT_TIMEOUT_MS,
  countLimit: COUNT_LIMIT,
  countBudgetMs: COUNT_BUDGET_MS,
  countBatch: COUNT_BATCH,
  maxCellChars: MAX_CELL_CHARS,
  maxRowChars: MAX_ROW_CHARS,
  maxResultBytes: MAX_RESULT_BYTES,
};
export type DbQueryLimits = typeof DEFAULT_LIMITS;

// Built with the tool's first use: a cold start registers the tool but seldom calls it.
const inputSchema = () =>
  z.object({
    database: z
      .string()
      .regex(/^[A-Za-z0-9_]{1,64}$/, 'must be a database name the operator configured (letters, digits, _)')
      .describe('Which database: one of the names the operator configured (an unknown name lists them).'),
    sql: z.string().min(1).max(100_000).describe('One read-only SQL statement (PostgreSQL). Use $1, $2 … with params for values.'),
    params: z
      .array(z.union([z.string().max(100_000), z.number(), z.boolean(), z.null()]))
      .max(100)
      .optional()
      .describe('Values for $1, $2 … in sql.'),
    max_rows: z.number().int().min(1).max(MAX_ROWS).optional().describe(`Most rows to return. Default and most ${MAX_ROWS}.`),
  });

/** The databases configured in `env`: lower-case name → the variable that holds its connection string. */
export function configuredDatabases(env: NodeJS.ProcessEnv = process.env): Map<string, string> {
  const found = new Map<string, string>();
  for (const key of Object.keys(env).sort()) {
    const name = DATABASE_VARIABLE.exec(key)?.[1];
    if (name && env[key]) found.set(name.toLowerCase(), key);
  }
  return found;
}

/**
 * db_query: one statement in a READ ONLY transaction that is always rolled back, under the server's
 * statement_timeout. What keeps it read-only is PostgreSQL, not a pattern on the SQL text: the
 * transaction refuses every write, the extended query protocol refuses a second statement, and a role
 * that could write server files or run programs anyway (a superuser, pg_write_server_files …) is refused,
 * and so is one that may still read or signal its other sessions (pg_stat_activity, pg_terminate_backend …:
 * every call shares the role).
 */
export function createDbQueryTool(options: { env?: NodeJS.ProcessEnv; limits?: Partial<DbQueryLimits> } = {}): ToolSpec<any> {
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  return defineTool({
    name: 'db_query',
    readOnly: true,
    // `db_query(analytics)`: rules match the database name.
    policySubject: (input) => input.database.toLowerCase(),
    description:
      'Run one read-only SQL statement against a PostgreSQL database the operator configured, and return the column names and types and up to 100 rows ' +
      '(with the total row count when it is cheap to get). The database enforces read-only: writes, DDL and a second statement fail; DO blocks are refused. ' +
      `Statements time out after ${STATEMENT_TIMEOUT_S} s. Values longer than ${MAX_CELL_CHARS} characters are cut (shorter when a row has many columns), ` +
      'and the call fails when its results pass 16 MB. Pass values as params ($1, $2 …) rather than pasting them into sql.',
    input: inputSchema,
    timeoutMs: 30_000,
    async execute({ database, sql, params, max_rows = MAX_ROWS }, { signal }) {
      const env = options.env ?? process.env;
      const known = configuredDatabases(env);
      const variable = known.get(database.toLowerCase());
      if (!variable) {
        const names = [...known.keys()];
        return {
          content: names.length
            ? `database: "${database}" is not configured. Known databases: ${names.join(', ')}.`
            : 'database: no databases are configured on this deployment (the operator sets ZERO_DB_<NAME> to a connection string).',
          is_error: true,
        };
      }
      const refused = refusedStatement(sql);
      if (refused) return { content: `database "${database.toLowerCase()}": ${refused}.`, is_error: true };
      const { runReadOnly } = await import('./db-session');
      return runReadOnly({ name: database.toLowerCase(), connectionString: env[variable]!, sql, params, maxRows: max_rows, signal }, limits);
    },
  });
}

export const dbQueryTool = createDbQueryTool();
