import { createRunner, type RunnerSpec } from '../runners/catalog';
import type { RunnerEnv } from '../runners/runner';
import { WARMUP_SESSIONS } from '../scenarios/concurrency';
import { median, percentile } from '../support/stats';
import { userMessage } from '../workload';

/**
 * Runs N sessions of one runner at once in this (fresh) process and reports
 * throughput, time to first event and memory. The fake's plan is set by the
 * parent before the worker is asked to run. With `profileFile`, Zero's server
 * is CPU-profiled while the sessions run.
 */
async function run({ spec, env, sessions, profileFile }: { spec: RunnerSpec; env: RunnerEnv; sessions: number; profileFile?: string }) {
  const runner = await createRunner(spec, env);
  const gc = (globalThis as { gc?: () => void }).gc;
  // Warm up code paths and connections with a few sessions, then measure from a collected heap.
  await Promise.all(Array.from({ length: WARMUP_SESSIONS }, (_, i) => runner.open().send(userMessage(i))));
  gc?.();
  // Zero's memory is its server process's; a peer's is this process's.
  const base = runner.server ? await runner.server.resetMemory() : process.memoryUsage();
  let peakRss = base.rss;
  let peakHeap = base.heapUsed;
  const sampler = setInterval(() => {
    const now = process.memoryUsage();
    peakRss = Math.max(peakRss, now.rss);
    peakHeap = Math.max(peakHeap, now.heapUsed);
  }, 10);
  const firstEvent: number[] = [];
  let errors = 0;
  const cpu0 = runner.server ? (await runner.server.stats()).cpuMs : cpuMs();
  if (profileFile) await runner.server?.startProfile();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: sessions }, async (_, i) => {
      try {
        const result = await runner.open().send(userMessage(i));
        if (result.firstEventMs !== undefined) firstEvent.push(result.firstEventMs);
      } catch {
        errors++;
      }
    }),
  );
  const wall = performance.now() - t0;
  clearInterval(sampler);
  const profile = profileFile ? await runner.server?.stopProfile(profileFile) : undefined;
  let runtimeCpu = cpuMs() - cpu0;
  if (runner.server) {
    const stats = await runner.server.stats();
    ({ peakRss, peakHeap } = stats);
    runtimeCpu = stats.cpuMs - cpu0;
  }
  await runner.close();
  return {
    runner: runner.name,
    sessions,
    wall_ms: wall,
    first_event_ms: { p50: median(firstEvent), p99: percentile(firstEvent, 99) },
    runtime_cpu_ms: runtimeCpu,
    rss_base_mb: base.rss / 2 ** 20,
    rss_peak_mb: peakRss / 2 ** 20,
    heap_per_session_kb: (peakHeap - base.heapUsed) / 1024 / sessions,
    rss_per_session_kb: (peakRss - base.rss) / 1024 / sessions,
    errors,
    ...(profile ? { profile } : {}),
  };
}

function cpuMs() {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

process.on('message', (message: { id: number; cmd: string; arg: Parameters<typeof run>[0] }) => {
  if (message.cmd !== 'run') return;
  run(message.arg).then(
    (result) => process.send!({ id: message.id, result }),
    (error) => process.send!({ id: message.id, result: { error: String(error?.stack ?? error) } }),
  );
});
process.on('disconnect', () => process.exit(0));
process.send!({ ready: { pid: process.pid } });
