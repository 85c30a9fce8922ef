import { DEFAULT_LIMITS } from '@zero/agent/loop/limits';
import type { RunQueue } from '@zero/runtime/sessions/queue';
import { startServer } from '../../local/server';
import { syncAgents } from '../../local/stack';
import type { RunnerEnv } from '../runners/runner';
import { API_KEY, BENCH_ZERO_KEY } from '../workload';

/**
 * Zero's server in its own process for the webhook benchmark. With
 * ZERO_BENCH_QUEUE=record run jobs are only counted, as in AWS where the API
 * function sends them to SQS and the worker runs them elsewhere; otherwise
 * the in-process queue runs them here, as under `npm start`.
 */
const env = JSON.parse(process.env.ZERO_BENCH_ENV ?? '{}') as RunnerEnv;
await syncAgents(env.store, env.agentsDir);
let jobs = 0;
const recording: RunQueue = { send: async () => void jobs++ };
const server = await startServer({
  store: env.store,
  anthropic: { apiKey: API_KEY, baseURL: env.fakeUrl, maxRetries: 0 },
  limits: DEFAULT_LIMITS,
  auth: { staticKeys: [{ key: BENCH_ZERO_KEY, user: { id: 'bench', name: 'Bench' } }] },
  ...(process.env.ZERO_BENCH_QUEUE === 'record' ? { queue: recording } : {}),
});
process.on('message', (message: { id: number; cmd: string }) => {
  process.send!({ id: message.id, result: message.cmd === 'jobs' ? jobs : undefined });
});
process.on('disconnect', () => void server.close().finally(() => process.exit(0)));
process.send!({ ready: { url: server.url } });
