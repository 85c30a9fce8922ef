import { DEFAULT_LIMITS } from '@zero/agent/loop/limits';
import { startServer } from '../../local/server';
import { syncAgents } from '../../local/stack';
import { DbTrace } from '../support/db-trace';
import { Profiler } from '../support/profile';
import type { RunnerEnv } from '../runners/runner';
import { AGENT_ID, API_KEY, BENCH_ZERO_KEY, zeroTools } from '../workload';

/**
 * Zero's local server (the same Hono app as Lambda) in its own process, so
 * its CPU time and memory are measured apart from the clients reading its
 * SSE streams, as they would be apart in production. Reports over IPC:
 * `stats`, `resetMemory`, `traceStart`/`traceStop` (DynamoDB requests by
 * code path) and `profileStart`/`profileStop` (a CPU profile to a file).
 */
const env = JSON.parse(process.env.ZERO_BENCH_ENV ?? '{}') as RunnerEnv;
// Agents come from the bucket, as under `npm start` and on Lambda (the S3 catalog, revalidated by ETag).
await syncAgents(env.store, env.agentsDir);
const server = await startServer({
  store: env.store,
  anthropic: { apiKey: API_KEY, baseURL: env.fakeUrl, maxRetries: 0 },
  limits: { ...DEFAULT_LIMITS, maxSteps: 1000, maxToolCalls: 10_000, maxCallsPerTool: 10_000 },
  defaultAgentId: AGENT_ID,
  // The SDK's tool runner titles nothing: the light tier's title call after a first exchange is left out of the comparison.
  sessionTitles: false,
  tools: zeroTools(),
  auth: { staticKeys: [{ key: BENCH_ZERO_KEY, user: { id: 'bench', name: 'Bench' } }] },
});

// Time spent waiting on DynamoDB (the persistence share) and, on request, which code path sent each request.
const db = new DbTrace().install();
const profiler = new Profiler();

let peakRss = 0;
let peakHeap = 0;
const sample = () => {
  const { rss, heapUsed } = process.memoryUsage();
  peakRss = Math.max(peakRss, rss);
  peakHeap = Math.max(peakHeap, heapUsed);
};
// Sampled only once a measurement of memory begins (`resetMemory`, the concurrency runs): the loop runs, timed
// against a tool runner that nobody samples, do not pay for it (it was ~2.8 % of this process's CPU there).
let sampling: NodeJS.Timeout | undefined;

process.on('message', async (message: { id: number; cmd: string; arg?: unknown }) => {
  let result: unknown;
  if (message.cmd === 'resetMemory') {
    (globalThis as { gc?: () => void }).gc?.();
    const { rss, heapUsed } = process.memoryUsage();
    peakRss = rss;
    peakHeap = heapUsed;
    sampling ??= setInterval(sample, 10).unref();
    result = { rss, heapUsed };
  } else if (message.cmd === 'stats') {
    sample();
    const cpu = process.cpuUsage();
    result = { cpuMs: (cpu.user + cpu.system) / 1000, persistence: { ...server.runtime.sessions.stats, ms: db.waitingMs }, peakRss, peakHeap };
  } else if (message.cmd === 'traceStart') db.start();
  else if (message.cmd === 'traceStop') result = db.stop();
  else if (message.cmd === 'profileStart') await profiler.start();
  else if (message.cmd === 'profileStop') result = await profiler.stop(message.arg as string);
  process.send!({ id: message.id, result });
});
process.on('disconnect', () => void server.close().finally(() => process.exit(0)));
process.send!({ ready: { url: server.url } });
