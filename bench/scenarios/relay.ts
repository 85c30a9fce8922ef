import type { Runner } from '../runners/runner';
import { epochNow, type BenchContext } from '../support/context';
import { median, percentile } from '../support/stats';

const DELTAS = 500;
const DELAY_MS = 2;

export interface RelayResult {
  runner: string;
  deltas: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
}

/** Scenario 2: 500 text deltas 2 ms apart; time from each leaving the fake to reaching the consumer. */
export async function relayLatency(ctx: BenchContext, runner: Runner): Promise<RelayResult> {
  const chunks = Array.from({ length: DELTAS }, (_, i) => `w${i} `);
  await ctx.fake.plan({ toolSteps: 0, callsPerStep: 0, answer: chunks, deltaDelayMs: DELAY_MS, recordDeltas: true });
  // One short warm-up turn so connections and code paths are hot.
  await ctx.fake.reset();
  await runner.open().send('warm up');
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
  return { runner: runner.name, deltas: DELTAS, p50_ms: median(latencies), p99_ms: percentile(latencies, 99), max_ms: Math.max(...latencies) };
}
