import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { runtimeConfigFromEnv } from '@zero/core';
import { startServer } from './server';
import { startLocalStack, syncAgents } from './stack';

/** `npm start`: Zero on localhost against embedded DynamoDB- and S3-compatible servers. */
async function main() {
  const port = Number(process.env.PORT ?? 8787);
  const dataDir = resolve(process.env.ZERO_DATA_DIR ?? '.zero');
  const stack = await startLocalStack({ dataDir });
  const agents = await syncAgents(stack.store, resolve('agents'));
  const config = runtimeConfigFromEnv(process.env, stack.store);
  // A development key so scripts can talk to the local server; ZERO_DEV_KEY keeps it stable across restarts.
  const devKey = process.env.ZERO_DEV_KEY || `zdev_${randomBytes(18).toString('base64url')}`;
  config.auth = { ...config.auth, staticKeys: [...(config.auth?.staticKeys ?? []), { key: devKey, user: { id: 'dev', name: 'Developer' } }] };
  const server = await startServer({ ...config, catalogRevalidateMs: 1000 }, port, process.env.HOST ?? '127.0.0.1');

  console.log(`Zero is listening on ${server.url}`);
  console.log(`  data:   ${dataDir} (DynamoDB ${stack.store.dynamoEndpoint}, S3 ${stack.store.s3Endpoint})`);
  console.log(`  key:    ${devKey}${process.env.ZERO_DEV_KEY ? ' (from ZERO_DEV_KEY)' : ''}  (an administrator key for user "dev")`);
  console.log(`  agents: ${agents.map((a) => a.replace(/\.md$/, '')).join(', ')}`);
  if (!config.anthropic.apiKey && !config.anthropic.baseURL) {
    console.log('  model:  not configured; set ANTHROPIC_API_KEY (or ANTHROPIC_BASE_URL) to chat');
  }

  const shutdown = async () => {
    await server.close();
    await stack.stop();
    process.exit(0);
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}

main().catch((error) => {
  console.error(`Zero could not start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
