import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { runtimeConfigFromEnv } from '../functions/create-runtime';
import { mirrorAgents } from './agents-folder';
import { DataDirInUseError } from './data-lock';
import { startServer } from './server';
import { startLocalStack } from './stack';

export interface EmbeddedZero {
  url: string;
  key: string;
  close(): Promise<void>;
}

/**
 * The local stack of `npm start`, in the calling process, for a client that
 * found no server (`zero agent` on a fresh clone): the same data folder and
 * agents, the same environment variables, a loopback port of its own and a
 * key made for this process only.
 */
export async function startEmbedded(options: { dataDir: string; agentsDir: string }): Promise<EmbeddedZero> {
  const stack = await startLocalStack({ dataDir: options.dataDir }).catch((error) => {
    if (DataDirInUseError.isInstance(error)) throw new Error(`${error.message}; is "npm start" running with another address? Set ZERO_URL to it, or ZERO_DATA_DIR to another folder.`);
    throw error;
  });
  try {
    await mirrorAgents(stack.store, options.agentsDir);
    const key = `zdev_${randomBytes(18).toString('base64url')}`;
    const config = runtimeConfigFromEnv(process.env, stack.store);
    config.vaultKey ??= { file: join(options.dataDir, 'vault.key') };
    config.auth = { ...config.auth, staticKeys: [...(config.auth?.staticKeys ?? []), { key, user: { id: 'dev', name: 'Developer' } }] };
    const server = await startServer(config, 0, '127.0.0.1', { consoleDir: '' });
    return {
      url: server.url,
      key,
      async close() {
        await server.close();
        await stack.stop();
      },
    };
  } catch (error) {
    await stack.stop();
    throw error;
  }
}
