import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { createSandbox } from '@zero/runtime/environments/create-sandbox';
import { runtimeConfigFromEnv } from '../functions/create-runtime';
import { describeAgents, mirrorAgents, watchAgents } from './agents-folder';
import { consoleIsStale, ensureConsoleBuilt } from './console-build';
import { DataDirInUseError } from './data-lock';
import { startServer, type RunningServer } from './server';
import { allowConsoleUploads, startLocalStack } from './stack';

// Zero runs on Node 20.19 and newer. On Node 20 the AWS SDK announces that its versions published after
// January 2027 will need Node 22; the lockfile installs none of those, so there is nothing to act on.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

/** `npm start`: Zero on localhost against embedded DynamoDB- and S3-compatible servers. */
async function main() {
  const port = Number(process.env.PORT ?? 8787);
  const host = process.env.HOST ?? '127.0.0.1';
  const dataDir = resolve(process.env.ZERO_DATA_DIR ?? '.zero');
  const agentsDir = resolve('agents');
  const stack = await startLocalStack({ dataDir }).catch((error) => {
    if (DataDirInUseError.isInstance(error)) throw new Error(`${error.message}. Stop that one, or set ZERO_DATA_DIR to another folder.`);
    throw error;
  });
  let server: RunningServer;
  let agents: string[];
  const config = runtimeConfigFromEnv(process.env, stack.store);
  // Vault credentials are sealed with a key file in the data folder (0600, made on first use) unless a key is configured.
  config.vaultKey ??= { file: join(dataDir, 'vault.key') };
  // One sandbox for run_command and bash, checked now: where it cannot run, commands are refused (never run unsandboxed).
  const sandbox = createSandbox({ ...config.commands?.sandboxOptions, outbound: config.outbound });
  // Environments' packages are installed once each, into the data folder, and kept across restarts.
  config.commands = { ...config.commands, sandbox, packagesRoot: config.commands?.packagesRoot ?? join(dataDir, 'environments') };
  const sandboxState = await sandbox.availability();
  // A development key so scripts and the console can talk to the local server: ZERO_DEV_KEY, or the one kept in the data folder.
  const devKey = process.env.ZERO_DEV_KEY || (await developmentKey(dataDir));
  config.auth = { ...config.auth, staticKeys: [...(config.auth?.staticKeys ?? []), { key: devKey, user: { id: 'dev', name: 'Developer' } }] };
  const portError = (error: unknown) => {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') return new Error(`port ${port} on ${host} is already in use (another Zero, or another program). Stop it, or set PORT to a free port.`);
    if (code === 'EACCES') return new Error(`port ${port} on ${host} may not be opened by this user. Set PORT to a port above 1023.`);
    return error;
  };
  try {
    // The data folder (above) and the port are checked before the console is built, which takes a while.
    await probePort(port, host).catch((error) => Promise.reject(portError(error)));
    if (consoleIsStale()) {
      console.log('Building the console (its sources changed since the last build)…');
      await ensureConsoleBuilt();
    }
    ({ agents } = await mirrorAgents(stack.store, agentsDir));
    server = await startServer({ ...config, catalogRevalidateMs: 1000 }, port, host, { scheduleTimer: true }).catch((error) => Promise.reject(portError(error)));
    // The console sends large archives straight to s3rver, from the server's origin.
    await allowConsoleUploads(stack.store, server.url);
  } catch (error) {
    await stack.stop();
    throw error;
  }

  const { runtime } = server;
  // The files as the catalog loaded them: a broken one is listed with its error, not as loaded.
  const listAgents = async (files: string[]) => {
    runtime.catalog.invalidate?.();
    const { errors } = await runtime.catalog.load().catch(() => ({ errors: [] }));
    return describeAgents(files, errors);
  };
  // Edits, new files and deletions in agents/ reach the bucket while Zero runs; the catalog rereads it every second.
  const watcher = watchAgents(stack.store, agentsDir, {
    onMirrored: async ({ agents, removed }) =>
      console.log(`agents: ${await listAgents(agents)} (reloaded from ${agentsDir}${removed.length ? `; removed ${names(removed)}` : ''})`),
    onError: (error) => console.error(`agents: could not copy ${agentsDir} into the bucket: ${error instanceof Error ? error.message : String(error)}`),
  });

  // Stopping is clean from the moment Zero says it listens (a script may stop it as soon as it reads that).
  const shutdown = async () => {
    watcher.close();
    await server.close();
    await stack.stop();
    process.exit(0);
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
  console.log(`Zero is listening on ${server.url}`);
  console.log(`  data:   ${dataDir} (DynamoDB ${stack.store.dynamoEndpoint}, S3 ${stack.store.s3Endpoint})`);
  console.log(`  key:    ${devKey} (${process.env.ZERO_DEV_KEY ? 'from ZERO_DEV_KEY' : `kept in ${devKeyFile(dataDir)}`}; an administrator key for user "dev")`);
  console.log(`  agents: ${await listAgents(agents)} (from ${agentsDir}, watched for changes)`);
  console.log(
    sandboxState.ok
      ? `  commands: run in a ${sandbox.kind} sandbox (${sandboxState.detail})`
      : `  commands: REFUSED: ${sandboxState.reason}. run_command and bash answer with this reason and run nothing.`,
  );
  const endpoints = Object.keys(config.providers?.endpoints ?? {});
  if (endpoints.length || config.providers?.bedrock) {
    console.log(`  models: ${['anthropic', ...(config.providers?.bedrock ? ['bedrock'] : []), ...endpoints].join(', ')} (default: ${config.providers?.default ?? 'anthropic'})`);
  }
  if (!config.anthropic.apiKey && !config.anthropic.baseURL && (config.providers?.default ?? 'anthropic') === 'anthropic') {
    console.log('  model:  not configured; set ANTHROPIC_API_KEY (or ANTHROPIC_BASE_URL) to chat');
  }

}

/** Fails as listening would (EADDRINUSE, EACCES) when the port cannot be had; port 0 always can. */
function probePort(port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(port, host, () => probe.close(() => resolve()));
  });
}

const devKeyFile = (dataDir: string) => join(dataDir, 'dev-key');

/**
 * The development key kept in the data folder (readable by its owner only), made on the first start:
 * it lasts as long as the data does, so an open console and `zero login` survive a restart.
 */
async function developmentKey(dataDir: string): Promise<string> {
  const file = devKeyFile(dataDir);
  const kept = (await readFile(file, 'utf8').catch(() => '')).trim();
  if (/^zdev_[A-Za-z0-9_-]{20,}$/.test(kept)) return kept;
  const key = `zdev_${randomBytes(18).toString('base64url')}`;
  await mkdir(dataDir, { recursive: true });
  await writeFile(file, `${key}\n`, { mode: 0o600 });
  await chmod(file, 0o600);
  return key;
}

const names = (files: string[]) => files.map((file) => file.replace(/\.md$/, '')).join(', ') || '(none)';

main().catch((error) => {
  console.error(`Zero could not start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
