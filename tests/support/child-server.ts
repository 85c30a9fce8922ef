/**
 * A Zero server in its own process, against stores and a fake model started
 * by the test, so the test can SIGKILL it mid-run. Configuration comes as
 * JSON in ZERO_CHILD_CONFIG; the URL is printed as the first stdout line.
 */
import { DEFAULT_LIMITS, type RuntimeConfig } from '@zero/core';
import { startServer } from '../../local/server';
import { testTools } from './tools';

const config = JSON.parse(process.env.ZERO_CHILD_CONFIG ?? '{}') as Partial<RuntimeConfig>;
const server = await startServer({
  ...config,
  store: config.store!,
  anthropic: config.anthropic ?? {},
  limits: { ...DEFAULT_LIMITS, ...config.limits },
  tools: testTools().tools,
  catalogRevalidateMs: 0,
});
process.stdout.write(`${server.url}\n`);
