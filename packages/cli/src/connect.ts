import { ZeroClient } from '@zero/client';
import { resolveTarget, type Target } from './config';
import { CliError, EXIT } from './exit';

export interface Connection {
  client: ZeroClient;
  target: Target;
  /** Set when the embedded local stack runs in this process: stop it before exiting. */
  close?: () => Promise<void>;
}

/** How long the CLI waits for a server's headers before it says it cannot reach it. */
const TIMEOUT_MS = Number(process.env.ZERO_CONNECT_TIMEOUT_MS) || 5000;

/**
 * A client of the configured deployment. With `embedded`, when nothing is
 * configured and nothing answers at the local default, the local stack is
 * started in this process (the same data folder and agents as `npm start`).
 */
export async function connect(profile: string | undefined, options: { embedded?: boolean } = {}): Promise<Connection> {
  const target = await resolveTarget(profile);
  const client = new ZeroClient({ url: target.url, key: target.key, timeoutMs: TIMEOUT_MS });
  if (target.source !== 'default') {
    if (!target.key) throw new CliError(`${target.keyProblem ?? `no key for ${target.url}`}; run "zero login" or set ZERO_KEY`, EXIT.unauthorized);
    return { client, target };
  }
  if (await new ZeroClient({ url: target.url, timeoutMs: 1500 }).health()) {
    if (!target.key) throw new CliError(`Zero answers at ${target.url} but no key is configured; run "zero login" with the key npm start printed, or set ZERO_KEY`, EXIT.unauthorized);
    return { client, target };
  }
  if (!options.embedded) throw new CliError(`cannot reach Zero at ${target.url}: nothing answers there; start it with "npm start" or run "zero login"`, EXIT.unreachable);
  const { startEmbedded } = await import('./embedded');
  const local = await startEmbedded();
  return {
    client: new ZeroClient({ url: local.url, key: local.key, timeoutMs: TIMEOUT_MS }),
    target: { url: local.url, key: local.key, source: 'default', profile: target.profile },
    close: local.close,
  };
}
