import type { Runner } from '../runners/runner';
import type { BenchContext } from '../support/context';
import { median, percentile, sum } from '../support/stats';
import { SHORT_ANSWER, userMessage } from '../workload';

export const LOOP_STEPS = 20;
const RUNS = 12;
const WARMUP = 3;

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

/** Scenario 1: a 20-step run, one cheap tool per step, the model answering instantly. */
export async function loopOverhead(ctx: BenchContext, runner: Runner): Promise<LoopOverheadResult> {
  await ctx.fake.plan({ toolSteps: LOOP_STEPS - 1, callsPerStep: 1, answer: SHORT_ANSWER });
  const gaps: number[] = [];
  const wall: number[] = [];
  const cpu: number[] = [];
  const clientCpu: number[] = [];
  const persistence: number[] = [];
  const firstEvent: number[] = [];
  for (let run = 0; run < WARMUP + RUNS; run++) {
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
    if (run < WARMUP) continue;
    const responses = [...stats.responses].sort((a, b) => a.arrived - b.arrived);
    for (let i = 1; i < responses.length; i++) gaps.push(responses[i]!.arrived - responses[i - 1]!.ended);
    const modelMs = sum(responses.map((r) => r.ended - r.arrived));
    wall.push((elapsed - modelMs) / LOOP_STEPS);
    const ownCpu = (cpuUsed.user + cpuUsed.system) / 1000 / LOOP_STEPS;
    if (before && after) {
      cpu.push((after.cpuMs - before.cpuMs) / LOOP_STEPS);
      clientCpu.push(ownCpu);
      persistence.push((after.persistence.ms - before.persistence.ms) / LOOP_STEPS);
    } else cpu.push(ownCpu);
    if (result.firstEventMs !== undefined) firstEvent.push(result.firstEventMs);
  }
  const wallPerStep = median(wall);
  return {
    runner: runner.name,
    runs: RUNS,
    steps_per_run: LOOP_STEPS,
    step_gap_ms: { p50: median(gaps), p99: percentile(gaps, 99) },
    wall_per_step_ms: wallPerStep,
    cpu_per_step_ms: median(cpu),
    ...(clientCpu.length ? { client_cpu_per_step_ms: median(clientCpu) } : {}),
    ...(persistence.length ? { persistence_per_step_ms: median(persistence), persistence_share: median(persistence) / wallPerStep } : {}),
    first_event_ms: { p50: median(firstEvent), p99: percentile(firstEvent, 99) },
  };
}
