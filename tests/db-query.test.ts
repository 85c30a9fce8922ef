import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolRegistry } from '@zero/agent/tools/registry';
import { createDbQueryTool, dbQueryTool } from '@zero/runtime/tools/db-query';
import type { ToolContext } from '@zero/runtime/tools/tool';
import { startPostgres, type TestPostgres } from './support/postgres';

// A password with the characters connection strings must encode, so a leak in any form would show.
const APP_PASSWORD = `Sh0p:pa/ss@word-${Math.random().toString(36).slice(2)}`;
const ROOT_PASSWORD = `r00t-${Math.random().toString(36).slice(2)}`;
const COPY_TARGET = join(tmpdir(), `zero-db-query-copy-${process.pid}`);
const context = { agent: { id: 'analyst', tools: ['db_query'] }, signal: new AbortController().signal } as unknown as ToolContext;
const options = { timeoutMs: 40_000, maxOutputChars: 200_000 };

describe('db_query against a real PostgreSQL on loopback', () => {
  let db: TestPostgres;
  let url: (user: string, password: string, database?: string, port?: number) => string;
  const registry = new ToolRegistry([dbQueryTool]);
  const query = (input: Record<string, unknown>) => registry.execute('db_query', input, context, options);
  /** What a write would change: row counts, a digest of every row, the sequence, the schema's objects. */
  const state = async () =>
    (
      await db.admin(
        `SELECT (SELECT count(*) FROM items) AS items, (SELECT md5(string_agg(items::text, ',' ORDER BY id)) FROM items) AS digest,
                (SELECT count(*) FROM audit) AS audit, (SELECT last_value FROM items_id_seq) AS sequence,
                (SELECT count(*) FROM pg_class WHERE relnamespace = 'public'::regnamespace) AS relations,
                (SELECT count(*) FROM pg_proc WHERE pronamespace = 'public'::regnamespace) AS functions,
                (SELECT count(*) FROM pg_prepared_xacts) AS prepared`,
        'shop',
      )
    ).rows[0];

  beforeAll(async () => {
    db = await startPostgres();
    url = (user, password, database = 'shop', port = db.port) => `postgres://${user}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
    await db.admin(`ALTER ROLE postgres PASSWORD '${ROOT_PASSWORD}'`);
    // app owns the data and may write it: whatever db_query refuses, the database refuses because of the transaction, not the grants.
    await db.admin(`CREATE ROLE app LOGIN PASSWORD '${APP_PASSWORD.replaceAll("'", "''")}'`);
    await db.admin(`CREATE ROLE filer LOGIN PASSWORD 'filer-pw' IN ROLE pg_write_server_files`);
    await db.admin('CREATE DATABASE shop OWNER app');
    await db.admin(
      `SET ROLE app;
       CREATE TABLE items (id serial PRIMARY KEY, name text NOT NULL, price numeric(8,2), tags text[], added timestamptz DEFAULT '2024-01-02 03:04:05+00');
       INSERT INTO items (name, price, tags) SELECT 'item ' || g, g * 1.5, ARRAY['t' || (g % 3)] FROM generate_series(1, 250) g;
       UPDATE items SET tags = NULL WHERE id = 2;
       CREATE TABLE audit (id serial PRIMARY KEY, note text);
       CREATE FUNCTION log_note(note text) RETURNS integer VOLATILE LANGUAGE sql AS $$ INSERT INTO audit (note) VALUES (note) RETURNING id $$;
       CREATE FUNCTION shout(n integer) RETURNS integer LANGUAGE plpgsql AS $$ BEGIN RAISE NOTICE '%', repeat('n', n); RETURN n; END $$;`,
      'shop',
    );
    // The README's grants, as the operator gives them: db_query refuses a role that still has what they revoke.
    await db.admin(readmeGrants(), 'shop');
    Object.assign(process.env, {
      ZERO_DB_SHOP: url('app', APP_PASSWORD),
      ZERO_DB_ROOT: url('postgres', ROOT_PASSWORD),
      ZERO_DB_FILER: url('filer', 'filer-pw'),
      ZERO_DB_WRONG_PASSWORD: url('app', 'not-the-password'),
      ZERO_DB_NO_SUCH_DB: url('app', APP_PASSWORD, 'nowhere'),
      ZERO_DB_NO_SERVER: url('app', APP_PASSWORD, 'shop', 1),
      ZERO_DB_GARBAGE: `postgres://app:${APP_PASSWORD}@[not-a-host/shop`,
    });
  }, 60_000);
  afterAll(async () => {
    for (const key of Object.keys(process.env)) if (key.startsWith('ZERO_DB_')) delete process.env[key];
    await db?.stop();
  });

  it('returns column names and types, at most 100 rows, and the total count', async () => {
    const all = await query({ database: 'shop', sql: 'SELECT id, name, price, tags, added FROM items ORDER BY id' });
    expect(all.is_error).toBe(false);
    const lines = all.content.split('\n');
    expect(lines[0]).toMatch(/^database "shop": 100 of 250 rows shown, in \d+ ms; the transaction was read-only and rolled back\./);
    expect(JSON.parse(lines[1]!.replace(/^columns: /, ''))).toEqual([
      { name: 'id', type: 'integer' },
      { name: 'name', type: 'text' },
      { name: 'price', type: 'numeric(8,2)' },
      { name: 'tags', type: 'text[]' },
      { name: 'added', type: 'timestamp with time zone' },
    ]);
    const rows = lines.slice(3).map((line) => JSON.parse(line));
    expect(rows).toHaveLength(100);
    expect(rows[0]).toEqual(['1', 'item 1', '1.50', '{t1}', '2024-01-02 03:04:05+00']);
    expect(rows[1]![3]).toBeNull();

    const some = await query({ database: 'SHOP', sql: 'SELECT name FROM items WHERE price > $1 AND name LIKE $2 ORDER BY id', params: [300, 'item 2%'], max_rows: 3 });
    expect(some.content).toMatch(/^database "shop": 3 of 50 rows shown/);
    expect(some.content.split('\n').slice(3)).toEqual(['["item 201"]', '["item 202"]', '["item 203"]']);

    const one = await query({ database: 'shop', sql: 'SELECT count(*) AS n FROM items' });
    expect(one.content).toMatch(/^database "shop": 1 row,/);
    expect(one.content).toContain('[{"name":"n","type":"bigint"}]');

    // Counting stops where it stops being cheap.
    const many = await query({ database: 'shop', sql: 'SELECT g FROM generate_series(1, 50000) g' });
    expect(many.content).toMatch(/^database "shop": 100 rows shown of more than \d+ \(not counted further\)/);
  });

  it('refuses every kind of write, hidden or not, and not a row changes', async () => {
    const before = await state();
    const writes = [
      'DROP TABLE items',
      'DELETE FROM items',
      'UPDATE items SET price = 0',
      "INSERT INTO items (name) VALUES ('intruder')",
      'CREATE TABLE intruder (id int)',
      'CREATE INDEX intruder ON items (name)',
      'ALTER TABLE items ADD COLUMN intruder int',
      'TRUNCATE items',
      'GRANT ALL ON items TO PUBLIC',
      'COPY items FROM STDIN',
      `COPY items TO '${COPY_TARGET}'`,
      `COPY (SELECT 1) TO PROGRAM 'touch ${COPY_TARGET}'`,
      'WITH gone AS (DELETE FROM items RETURNING id) SELECT count(*) FROM gone',
      'WITH cheap AS (UPDATE items SET price = 0 RETURNING id) SELECT count(*) FROM cheap',
      "SELECT log_note('written by a function')",
      "SELECT nextval('items_id_seq')",
      'EXPLAIN ANALYZE DELETE FROM items',
      'SET TRANSACTION READ WRITE',
      "SELECT set_config('transaction_read_only', 'off', true)",
      'SELECT 1; DELETE FROM items',
      'COMMIT; DELETE FROM items',
      'ROLLBACK; BEGIN READ WRITE; DELETE FROM items; COMMIT',
      "PREPARE TRANSACTION 'keep'",
    ];
    for (const sql of writes) {
      const result = await query({ database: 'shop', sql });
      expect({ sql, is_error: result.is_error, content: result.content }).toEqual({ sql, is_error: true, content: expect.stringMatching(/^database "shop": the statement failed: .* \[SQLSTATE \w{5}\]/) });
      expect({ sql, state: await state() }).toEqual({ sql, state: before });
    }
    expect(existsSync(COPY_TARGET)).toBe(false);
    // The reasons are the database's own.
    expect((await query({ database: 'shop', sql: 'DELETE FROM items' })).content).toContain('cannot execute DELETE in a read-only transaction [SQLSTATE 25006]');
    expect((await query({ database: 'shop', sql: 'SELECT 1; DELETE FROM items' })).content).toContain('cannot insert multiple commands into a prepared statement [SQLSTATE 42601]');
    expect((await query({ database: 'shop', sql: "SELECT log_note('x')" })).content).toContain('cannot execute INSERT in a read-only transaction');

    // The same role can write outside db_query: the refusals above are the transaction's, not missing grants.
    const app = new pg.Client({ connectionString: process.env.ZERO_DB_SHOP });
    await app.connect();
    try {
      await app.query('BEGIN');
      expect((await app.query('DELETE FROM items WHERE id = 1')).rowCount).toBe(1);
      await app.query('ROLLBACK');
    } finally {
      await app.end();
    }
  });

  it('runs under a read-only transaction with a 10 s statement timeout, and cancels a statement that overruns', async () => {
    const settings = await query({ database: 'shop', sql: "SELECT current_setting('transaction_read_only') AS ro, current_setting('statement_timeout') AS timeout" });
    expect(settings.content.split('\n').at(-1)).toBe('["on","10s"]');

    const impatient = new ToolRegistry([createDbQueryTool({ limits: { statementTimeoutMs: 300 } })]);
    const slow = await impatient.execute('db_query', { database: 'shop', sql: 'SELECT pg_sleep(5)' }, context, options);
    expect(slow).toMatchObject({ is_error: true, content: expect.stringContaining('canceling statement due to statement timeout (it ran past the time limit, or was cancelled) [SQLSTATE 57014]') });
  });

  it('always rolls back and closes its connection, even after the statement fails', async () => {
    for (const sql of ['SELECT pg_advisory_xact_lock(4242)', 'SELECT pg_advisory_xact_lock(4242), 1 / 0']) {
      await query({ database: 'shop', sql });
      // The transaction that held the lock has ended, so the lock is free.
      const free = await db.admin('SELECT pg_try_advisory_lock(4242) AS got, pg_advisory_unlock(4242)', 'shop');
      expect(free.rows[0].got).toBe(true);
    }
    let open = Infinity;
    for (let i = 0; i < 50 && open > 0; i++) {
      open = Number((await db.admin("SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = 'zero db_query'")).rows[0].n);
      if (open) await new Promise((r) => setTimeout(r, 20));
    }
    expect(open).toBe(0);
  });

  it('refuses to run as a role that can write server files or run programs there', async () => {
    for (const database of ['root', 'filer']) {
      const result = await query({ database, sql: `COPY (SELECT 1) TO PROGRAM 'touch ${COPY_TARGET}'` });
      expect(result).toMatchObject({ is_error: true, content: expect.stringContaining(`database "${database}": db_query does not run as a role that can write the server's files`) });
    }
    expect(existsSync(COPY_TARGET)).toBe(false);
  });

  it('names the configured databases for an unknown one, never their connection strings', async () => {
    const unknown = await query({ database: 'warehouse', sql: 'SELECT 1' });
    expect(unknown).toEqual({
      is_error: true,
      truncated: false,
      content: 'database: "warehouse" is not configured. Known databases: filer, garbage, no_server, no_such_db, root, shop, wrong_password.',
    });
    const none = new ToolRegistry([createDbQueryTool({ env: {} })]);
    expect((await none.execute('db_query', { database: 'shop', sql: 'SELECT 1' }, context, options)).content).toBe(
      'database: no databases are configured on this deployment (the operator sets ZERO_DB_<NAME> to a connection string).',
    );
  });

  it('keeps credentials and connection details out of every failure', async () => {
    const cases: [string, string][] = [
      ['wrong_password', 'Could not connect to database "wrong_password": the server refused the credentials.'],
      ['no_such_db', 'Could not connect to database "no_such_db": the database named in the connection string does not exist.'],
      ['no_server', 'Could not connect to database "no_server": the server refused the connection.'],
    ];
    for (const [database, message] of cases) expect(await query({ database, sql: 'SELECT 1' })).toMatchObject({ is_error: true, content: message });
    const garbage = await query({ database: 'garbage', sql: 'SELECT 1' });
    expect(garbage.is_error).toBe(true);

    const failures = [garbage.content, (await query({ database: 'shop', sql: 'SELECT * FROM missing_table' })).content];
    for (const [database] of cases) failures.push((await query({ database, sql: 'SELECT 1' })).content);
    for (const text of failures) {
      for (const detail of [APP_PASSWORD, encodeURIComponent(APP_PASSWORD), ROOT_PASSWORD, 'not-the-password', '127.0.0.1', `:${db.port}`, 'app:', 'postgres://']) {
        expect({ text, leaked: text.includes(detail) ? detail : undefined }).toEqual({ text, leaked: undefined });
      }
    }
  });

  it('cuts a 540 MB value on the server, says what it cut, and the process survives', async () => {
    // The repeat('x', 540000000), built 1,000 characters at a time (PostgreSQL takes seconds either way on a busy machine:
    // a longer statement timeout, so that the value is sent rather than cancelled).
    const patient = new ToolRegistry([createDbQueryTool({ limits: { statementTimeoutMs: 28_000 } })]);
    const big = await patient.execute('db_query', { database: 'shop', sql: "SELECT repeat(repeat('x', 1000), 540000) AS big, 'small' AS s, NULL::text AS nothing;" }, context, options);
    expect(big.is_error).toBe(false);
    const lines = big.content.split('\n');
    expect(lines[0]).toMatch(/^database "shop": 1 row, in \d+ ms; .* 1 value was cut at 2000 characters, each marked "… \[N bytes; cut at 2000 characters\]"\.$/);
    expect(JSON.parse(lines[1]!.replace(/^columns: /, ''))).toEqual([
      { name: 'big', type: 'text' },
      { name: 's', type: 'text' },
      { name: 'nothing', type: 'text' },
    ]);
    expect(JSON.parse(lines[3]!)).toEqual([`${'x'.repeat(2000)}… [540000000 bytes; cut at 2000 characters]`, 'small', null]);

    // A row of many long values: its 16,000 characters are shared, so each is cut shorter.
    const columns = Array.from({ length: 40 }, (_, i) => `repeat('${String.fromCharCode(97 + (i % 26))}', 5000) AS c${i}`).join(', ');
    const wide = await query({ database: 'shop', sql: `SELECT ${columns} FROM generate_series(1, 3)` });
    expect(wide.content.split('\n')[0]).toContain('3 rows, in');
    expect(wide.content.split('\n')[0]).toContain('120 values were cut at 400 characters');
    expect(JSON.parse(wide.content.split('\n')[3]!)[1]).toBe(`${'b'.repeat(400)}… [5000 bytes; cut at 400 characters]`);
    // Values of every type are cut in their text form, and multi-byte characters count as characters.
    const typed = await query({ database: 'shop', sql: "SELECT repeat('é', 3000)::varchar AS v, (SELECT array_agg(g) FROM generate_series(1, 2000) g) AS a, 42 AS n" });
    const [v, a, n] = JSON.parse(typed.content.split('\n')[3]!);
    expect(v).toBe(`${'é'.repeat(2000)}… [6000 bytes; cut at 2000 characters]`);
    expect(a).toMatch(/^\{1,2,3,.*… \[8894 bytes; cut at 2000 characters\]$/);
    expect(n).toBe('42');
    // A statement that cannot be wrapped (EXPLAIN) is still one statement and still the database's.
    const explained = await query({ database: 'shop', sql: 'EXPLAIN SELECT id FROM items WHERE id = $1', params: [3] });
    expect(explained).toMatchObject({ is_error: false, content: expect.stringContaining('[{"name":"QUERY PLAN","type":"text"}]') });
    // A statement cannot close the wrapper's parenthesis to add a column that is not cut.
    const escape = await query({ database: 'shop', sql: "SELECT 1) AS s(c1) UNION ALL SELECT repeat('x', 540000000) FROM (SELECT 1" });
    expect(escape.content).toMatch(/the statement failed: syntax error at or near "\)"/);
  }, 90_000);

  it('ends the connection when what it receives passes the byte budget: a result, a huge error, a huge notice', async () => {
    const huge = [
      // EXPLAIN cannot be wrapped, and VERBOSE prints the folded 20 MB constant.
      "EXPLAIN VERBOSE SELECT repeat('x', 20000000)",
      // The error message quotes the whole value.
      "SELECT repeat('7', 20000000)::int",
      // A function of the database's own that raises a notice quoting a huge value (DO blocks are refused).
      'SELECT shout(20000000)',
    ];
    for (const sql of huge) {
      const result = await query({ database: 'shop', sql });
      expect({ sql, result }).toEqual({
        sql,
        result: {
          is_error: true,
          truncated: false,
          content: expect.stringMatching(/^database "shop": the statement's results passed 16 MB while being read, so db_query stopped reading and closed the connection/),
        },
      });
    }
    // Counting stops where the rows would pass the budget; what is shown is still shown.
    const frugal = new ToolRegistry([createDbQueryTool({ limits: { maxResultBytes: 2 * 1024 * 1024 } })]);
    const many = await frugal.execute('db_query', { database: 'shop', sql: "SELECT g, repeat('x', 1000) FROM generate_series(1, 100000) g" }, context, options);
    expect(many).toMatchObject({ is_error: false, content: expect.stringMatching(/^database "shop": 100 rows shown of more than \d+ \(not counted further\)/) });
    // The server still answers.
    expect((await query({ database: 'shop', sql: 'SELECT 1 AS one' })).content).toContain('["1"]');
  });

  it("refuses what reads or cancels other sessions' statements, and the README's grants keep the role from them", async () => {
    const refused = [
      ['SELECT query FROM pg_stat_activity', 'pg_stat_activity'],
      ['select pid, query from PG_CATALOG."PG_STAT_ACTIVITY"', 'pg_stat_activity'],
      ['SELECT * FROM pg_stat_get_activity(NULL)', 'pg_stat_get_activity'],
      ['SELECT pg_stat_get_backend_activity(s) FROM pg_stat_get_backend_idset() s', 'pg_stat_get_backend_activity'],
      ['SELECT pg_terminate_backend(pid) FROM pg_locks', 'pg_terminate_backend'],
      ['SELECT pg_cancel_backend(1)', 'pg_cancel_backend'],
      ["SELECT query_to_xml('select query from pg_stat_' || 'activity', true, true, '')", 'query_to_xml'],
      ["SELECT table_to_xml(('pg_stat_' || 'activity')::regclass, true, false, '')", 'table_to_xml'],
      ["SELECT schema_to_xml('pg_catalog', true, false, '')", 'schema_to_xml'],
      ["SELECT * FROM ts_stat('select to_tsvector(query) from pg_stat_' || 'activity')", 'ts_stat'],
    ];
    for (const [sql, name] of refused) {
      const result = await query({ database: 'shop', sql });
      expect({ sql, is_error: result.is_error, content: result.content }).toEqual({ sql, is_error: true, content: expect.stringMatching(new RegExp(`^database "shop": db_query does not run statements that use ${name} \\(`)) });
    }
    expect((await query({ database: 'shop', sql: 'SELECT query FROM U&"pg\\005fstat_activity"' })).content).toContain('Unicode-escaped identifiers');
    // A column that only looks alike is not refused.
    expect((await query({ database: 'shop', sql: 'SELECT 1 AS posts_stat, 2 AS my_pg_stat_activity_copy' })).is_error).toBe(false);

    // A role that reads every session's statements or signals them is refused outright.
    await db.admin(`CREATE ROLE watcher LOGIN PASSWORD 'watcher-pw' IN ROLE pg_read_all_stats; GRANT CONNECT ON DATABASE shop TO watcher`);
    process.env.ZERO_DB_WATCHER = url('watcher', 'watcher-pw');
    try {
      expect((await query({ database: 'watcher', sql: 'SELECT 1' })).content).toContain("db_query does not run as a role that can read other sessions' statements or cancel them");
    } finally {
      delete process.env.ZERO_DB_WATCHER;
    }

    // The grants the README gives (applied to shop before all tests) keep the role itself from them, whatever text reaches the database.
    const app = new pg.Client({ connectionString: process.env.ZERO_DB_SHOP });
    await app.connect();
    try {
      for (const sql of ['SELECT query FROM pg_stat_activity', 'SELECT pg_stat_get_backend_activity(1)', 'SELECT * FROM pg_stat_get_activity(NULL)', 'SELECT pg_cancel_backend(1)', 'SELECT pg_terminate_backend(1)']) {
        await expect(app.query(sql), sql).rejects.toThrow(/permission denied/);
      }
    } finally {
      await app.end();
    }
  });

  it('refuses DO blocks, which build SQL from strings no name check sees', async () => {
    const before = await state();
    const blocks = [
      // The review's bypass: the view's name in pieces, its rows carried out in the error.
      "DO $$DECLARE r text; BEGIN EXECUTE 'select string_agg(query,chr(10)) from pg_stat_'||'activity' INTO r; RAISE EXCEPTION '%', r; END$$",
      "do $$ BEGIN PERFORM pg_catalog.pg_sleep(0); EXECUTE 'select pg_terminate' || '_backend(1)'; END $$",
      'DO $$ BEGIN DELETE FROM items; END $$',
      '  -- a comment first\n /* and a /* nested */ one */ Do LANGUAGE plpgsql $$ BEGIN SET TRANSACTION READ WRITE; DELETE FROM items; END $$',
    ];
    for (const sql of blocks) {
      const result = await query({ database: 'shop', sql });
      expect({ sql, is_error: result.is_error, content: result.content }).toEqual({ sql, is_error: true, content: expect.stringMatching(/^database "shop": db_query does not run DO blocks \(/) });
    }
    expect(await state()).toEqual(before);
    // A statement that merely has a column named do is not a DO block.
    expect((await query({ database: 'shop', sql: 'SELECT 1 AS "do"' })).is_error).toBe(false);
  });

  it("refuses a role that may still read or end its other sessions' statements, naming what to revoke", async () => {
    // plain has not had the README's grants: PostgreSQL's defaults let every role use all five.
    await db.admin('CREATE DATABASE plain OWNER app');
    process.env.ZERO_DB_PLAIN = url('app', APP_PASSWORD, 'plain');
    try {
      const refused = await query({ database: 'plain', sql: 'SELECT 1' });
      expect(refused).toMatchObject({
        is_error: true,
        content:
          "database \"plain\": db_query does not run as a role that can read or end other db_query sessions' statements, and this role may use " +
          'pg_stat_activity, pg_stat_get_activity, pg_stat_get_backend_activity, pg_cancel_backend, pg_terminate_backend (PostgreSQL grants them to every role). ' +
          'The operator should revoke them from PUBLIC in this database (docs/tools.md, db_query).',
      });
      // The same role in shop, where the README's grants were applied, passes the check.
      expect((await query({ database: 'shop', sql: 'SELECT 1 AS one' })).content).toContain('["1"]');
      // Each grant counts: giving one back is enough to be refused.
      await db.admin(readmeGrants(), 'plain');
      expect((await query({ database: 'plain', sql: 'SELECT 1 AS one' })).content).toContain('["1"]');
      // pg_stat_statements, once installed, counts too, until the README's commented REVOKE is run.
      await db.admin('CREATE EXTENSION pg_stat_statements', 'plain');
      expect((await query({ database: 'plain', sql: 'SELECT 1' })).content).toContain('this role may use pg_stat_statements (');
      await db.admin('REVOKE SELECT ON pg_stat_statements FROM PUBLIC', 'plain');
      expect((await query({ database: 'plain', sql: 'SELECT 1 AS one' })).content).toContain('["1"]');
      await db.admin('GRANT EXECUTE ON FUNCTION pg_terminate_backend(integer, bigint) TO app', 'plain');
      expect((await query({ database: 'plain', sql: 'SELECT 1' })).content).toContain('this role may use pg_terminate_backend (');
    } finally {
      delete process.env.ZERO_DB_PLAIN;
    }
  });

  it('rejects bad input naming the field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ database: 'shop' }, 'sql:'],
      [{ database: 'shop', sql: '' }, 'sql:'],
      [{ database: 'shop; DROP', sql: 'SELECT 1' }, 'database: must be a database name'],
      [{ sql: 'SELECT 1' }, 'database:'],
      [{ database: 'shop', sql: 'SELECT $1', params: [{ a: 1 }] }, 'params.0:'],
      [{ database: 'shop', sql: 'SELECT 1', max_rows: 500 }, 'max_rows:'],
    ];
    for (const [input, message] of cases) {
      const result = await query(input);
      expect({ input, is_error: result.is_error, content: result.content }).toEqual({ input, is_error: true, content: expect.stringContaining(message) });
    }
    // A statement PostgreSQL cannot parse is its error, with the position.
    expect((await query({ database: 'shop', sql: 'SELEC 1' })).content).toBe('database "shop": the statement failed: syntax error at or near "SELEC" [SQLSTATE 42601]; at character 1');
  });
});

/** The SQL the docs' db_query section (docs/tools.md, once the README's) tells the operator to run in every database db_query reaches. */
function readmeGrants(): string {
  const readme = readFileSync(join(import.meta.dirname, '..', 'docs', 'tools.md'), 'utf8');
  const grants = /```sql\n([^`]*REVOKE EXECUTE ON FUNCTION pg_cancel_backend[^`]*)```/.exec(readme)?.[1];
  if (!grants) throw new Error("docs/tools.md's db_query section has no REVOKE block");
  return grants;
}
