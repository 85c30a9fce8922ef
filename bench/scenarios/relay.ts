import type { Runner } from '../runners/runner';
import { epochNow, type BenchContext } from '../support/context';
import { median, percentile } from '../support/stats';

const DELTAS = 500;
const DELAY_MS = 2;
/** The run is repeated and the median run reported: on a small machine one scheduler hiccup moves a p99 by milliseconds. */
const REPEATS = 3;

export interface RelayResult {
  runner: string;
  deltas: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
  /** p99 of each repeat, in order. */
  p99_each_ms: number[];
}

/** Scenario 2: 500 text deltas 2 ms apart; time from each leaving the fake to reaching the consumer. Runners take turns. */
export async function relayLatency(ctx: BenchContext, runners: Runner[]): Promise<RelayResult[]> {
  const chunks = Array.from({ length: DELTAS }, (_, i) => `w${i} `);
  await ctx.fake.plan({ toolSteps: 0, callsPerStep: 0, answer: chunks, deltaDelayMs: DELAY_MS, recordDeltas: true });
  // One warm-up turn each, so connections and code paths are hot.
  for (const runner of runners) {
    await ctx.fake.reset();
    await runner.open().send('warm up');
  }
  const repeats = runners.map(() => [] as { p50: number; p99: number; max: number }[]);
  for (let repeat = 0; repeat < REPEATS; repeat++) {
    for (const [i, runner] of runners.entries()) repeats[i]!.push(await oneStream(ctx, runner));
  }
  return runners.map((runner, i) => {
    const runs = repeats[i]!;
    const middle = [...runs].sort((a, b) => a.p99 - b.p99)[Math.floor(REPEATS / 2)]!;
    return { runner: runner.name, deltas: DELTAS, p50_ms: middle.p50, p99_ms: middle.p99, max_ms: middle.max, p99_each_ms: runs.map((r) => r.p99) };
  });
}

async function oneStream(ctx: BenchContext, runner: Runner) {
  await ctx.fake.reset();
  const received = new Map<string, number>();
  await runner.open().send('Stream a long answer.', {
    onText(delta) {
      const at = epochNow();
      // A consumer may receive several deltas at once; each counts from when it was sent.
      for (const word of delta.match(/w\d+ /g) ?? []) if (!received.has(word)) received.set(word, at);
    },
  });
  const { deltas } = await ctx.fake.stats();
  const latencies = deltas.flatMap(([text, sent]) => (received.has(text) ? [received.get(text)! - sent] : []));
  if (latencies.length !== DELTAS) throw new Error(`${runner.name}: received ${latencies.length} of ${DELTAS} deltas`);
  return { p50: median(latencies), p99: percentile(latencies, 99), max: Math.max(...latencies) };
}
