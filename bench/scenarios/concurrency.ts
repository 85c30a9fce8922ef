import { join } from 'node:path';
import { forkChild } from '../support/child';
import type { BenchContext } from '../support/context';
import type { RunnerSpec } from '../runners/catalog';

export const SESSIONS = 200;
export const WARMUP_SESSIONS = 4;
/** 20 deltas 5 ms apart: each answer streams for about 100 ms, so the sessions overlap. */
const STREAMED_ANSWER = Array.from({ length: 20 }, (_, i) => `part${i} `);

export interface ConcurrencyResult {
  runner: string;
  sessions: number;
  steps: number;
  wall_ms: number;
  steps_per_s: number;
  first_event_ms: { p50: number; p99: number };
  /** CPU time of the runtime during the sessions (Zero: its server process; peers: their process). */
  runtime_cpu_ms: number;
  /** Zero: CPU time of the DynamoDB/S3 emulators (dynalite, s3rver) during the sessions. */
  store_cpu_ms?: number;
  /** Resident set size before the sessions start (server and clients warmed up) and at its peak. */
  rss_base_mb: number;
  rss_peak_mb: number;
  /** Peak growth of the JS heap over the base, per concurrent session. */
  heap_per_session_kb: number;
  rss_per_session_kb: number;
  errors: number;
  /** Zero: the DynamoDB requests per session (the warm-up sessions included), by operation and item type. */
  store_requests_per_session?: { operation: string; item: string; per_session: number }[];
  /** Zero with `--profile`: the CPU profile of its server during the sessions. */
  profile?: string;
}

/**
 * Scenario 3: 200 sessions at once, each a tool step and a streamed answer.
 * Each runner runs in a fresh process so its memory is its own; Zero's
 * figures include its HTTP server and the 200 SSE clients.
 */
export async function concurrency(ctx: BenchContext, spec: RunnerSpec, profileFile?: string): Promise<ConcurrencyResult> {
  await ctx.fake.plan({ toolSteps: 1, callsPerStep: 1, answer: STREAMED_ANSWER, deltaDelayMs: 5 });
  await ctx.fake.reset();
  const worker = await forkChild<{ pid: number }>(join(import.meta.dirname, '..', 'processes', 'concurrency-worker.ts'), ['--expose-gc']);
  try {
    const storesBefore = await ctx.storesCpuMs();
    await ctx.resetStoreRequests();
    const result = await worker.call<Omit<ConcurrencyResult, 'steps' | 'steps_per_s' | 'store_cpu_ms' | 'store_requests_per_session'> & { error?: string }>('run', {
      spec,
      env: ctx.env,
      sessions: SESSIONS,
      profileFile,
    });
    if (result.error) throw new Error(result.error);
    const storeRequests = (await ctx.storeRequests())
      .map((c) => ({ operation: c.operation, item: c.conditionFailed ? `${c.item} (condition failed)` : c.item, per_session: c.count / (SESSIONS + WARMUP_SESSIONS) }))
      .sort((a, b) => b.per_session - a.per_session);
    const stores = spec.kind === 'zero' ? { store_cpu_ms: (await ctx.storesCpuMs()) - storesBefore, store_requests_per_session: storeRequests } : {};
    const { requests } = await ctx.fake.stats();
    // Every session is two steps; the worker's four warm-up sessions come first.
    const steps = requests - WARMUP_SESSIONS * 2;
    return { ...result, ...stores, steps, steps_per_s: steps / (result.wall_ms / 1000) };
  } finally {
    await worker.stop();
  }
}
