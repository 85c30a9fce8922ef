import type { Runner } from '../runners/runner';
import type { BenchContext } from '../support/context';
import { median, percentile, sum } from '../support/stats';
import { SHORT_ANSWER, userMessage } from '../workload';

export const LOOP_STEPS = 20;
/** Runs measured per runner, after warm-up runs; `--quick` measures fewer. */
export const LOOP_RUNS = { full: { runs: 12, warmup: 3 }, quick: { runs: 6, warmup: 2 } };

export interface LoopOverheadResult {
  runner: string;
  runs: number;
  steps_per_run: number;
  /** Per step, from the fake's clock: a response's end to the next request's arrival (tool, persistence, request building, transport). */
  step_gap_ms: { p50: number; p99: number };
  /** Per step: the run's wall time less the time the fake spent answering, over the steps. */
  wall_per_step_ms: number;
  /** Per step: CPU time of the runtime (Zero: its server process; peers: their process). The fake and the stores run elsewhere. */
  cpu_per_step_ms: number;
  /** Zero: CPU time of the process reading its SSE stream (a client's cost, not the runtime's). */
  client_cpu_per_step_ms?: number;
  /** Zero: time waiting on DynamoDB, and its share of the wall time outside the model. */
  persistence_per_step_ms?: number;
  persistence_share?: number;
  /** Request → first event (Zero: `start`), p50/p99 over new sessions. */
  first_event_ms: { p50: number; p99: number };
}

/**
 * Scenario 1: a 20-step run, one cheap tool per step, the model answering
 * instantly. The runners take turns run by run, so a burst of load from
 * elsewhere on the machine falls on all of them alike. With `profileFile`,
 * Zero (the first runner) runs as many runs again under the CPU profiler.
 */
export async function loopOverhead(
  ctx: BenchContext,
  runners: Runner[],
  { runs, warmup } = LOOP_RUNS.full,
  profileFile?: string,
): Promise<{ results: LoopOverheadResult[]; profile?: string }> {
  await ctx.fake.plan({ toolSteps: LOOP_STEPS - 1, callsPerStep: 1, answer: SHORT_ANSWER });
  const samples = runners.map(() => ({ gaps: [] as number[], wall: [] as number[], cpu: [] as number[], clientCpu: [] as number[], persistence: [] as number[], firstEvent: [] as number[] }));
  for (let run = 0; run < warmup + runs; run++) {
    for (const [i, runner] of runners.entries()) {
      const sample = await oneRun(ctx, runner, run);
      if (run < warmup) continue;
      const into = samples[i]!;
      into.gaps.push(...sample.gaps);
      into.wall.push(sample.wall);
      into.cpu.push(sample.cpu);
      if (sample.clientCpu !== undefined) into.clientCpu.push(sample.clientCpu);
      if (sample.persistence !== undefined) into.persistence.push(sample.persistence);
      if (sample.firstEvent !== undefined) into.firstEvent.push(sample.firstEvent);
    }
  }
  // Profiled runs come after the measured ones, so the profiler's own cost is in no figure.
  let profile: string | undefined;
  const server = runners[0]?.server;
  if (profileFile && server) {
    await server.startProfile();
    for (let run = 0; run < runs; run++) await oneRun(ctx, runners[0]!, run);
    profile = await server.stopProfile(profileFile);
  }
  const results = runners.map((runner, i) => {
    const { gaps, wall, cpu, clientCpu, persistence, firstEvent } = samples[i]!;
    const wallPerStep = median(wall);
    return {
      runner: runner.name,
      runs,
      steps_per_run: LOOP_STEPS,
      step_gap_ms: { p50: median(gaps), p99: percentile(gaps, 99) },
      wall_per_step_ms: wallPerStep,
      cpu_per_step_ms: median(cpu),
      ...(clientCpu.length ? { client_cpu_per_step_ms: median(clientCpu) } : {}),
      ...(persistence.length ? { persistence_per_step_ms: median(persistence), persistence_share: median(persistence) / wallPerStep } : {}),
      first_event_ms: { p50: median(firstEvent), p99: percentile(firstEvent, 99) },
    };
  });
  return { results, ...(profile ? { profile } : {}) };
}

/** One 20-step run in a new session; times per step. */
async function oneRun(ctx: BenchContext, runner: Runner, run: number) {
  await ctx.fake.reset();
  const session = runner.open();
  const before = await runner.server?.stats();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const result = await session.send(userMessage(run));
  const elapsed = performance.now() - t0;
  const cpuUsed = process.cpuUsage(cpu0);
  const after = await runner.server?.stats();
  const stats = await ctx.fake.stats();
  if (stats.requests !== LOOP_STEPS) throw new Error(`${runner.name}: expected ${LOOP_STEPS} model calls, saw ${stats.requests}`);
  const responses = [...stats.responses].sort((a, b) => a.arrived - b.arrived);
  const gaps = responses.slice(1).map((r, i) => r.arrived - responses[i]!.ended);
  const modelMs = sum(responses.map((r) => r.ended - r.arrived));
  const ownCpu = (cpuUsed.user + cpuUsed.system) / 1000 / LOOP_STEPS;
  return {
    gaps,
    wall: (elapsed - modelMs) / LOOP_STEPS,
    // Zero's runtime CPU is its server's; the SSE client's is reported apart.
    cpu: before && after ? (after.cpuMs - before.cpuMs) / LOOP_STEPS : ownCpu,
    clientCpu: before && after ? ownCpu : undefined,
    persistence: before && after ? (after.persistence.ms - before.persistence.ms) / LOOP_STEPS : undefined,
    firstEvent: result.firstEventMs,
  };
}
