import type { Runner } from '../runners/runner';
import type { BenchContext } from '../support/context';
import { median } from '../support/stats';
import { BENCH_ZERO_KEY, SHORT_ANSWER, userMessage } from '../workload';

/** Sessions put in the table between the two measurements (`ZERO_BENCH_SESSIONS`, default 10,000). */
export const GROWTH_SESSIONS = Number(process.env.ZERO_BENCH_SESSIONS ?? 10_000);
/** New sessions measured at each size, one tool turn each. */
const SAMPLES = 15;

export interface SessionsPoint {
  /** Sessions of the bench's user in the table when measured. */
  sessions: number;
  turn_ms: number;
  step_gap_ms: number;
  /** Per step (a turn is two), medians over the samples. */
  reads_per_step: number;
  writes_per_step: number;
  read_bytes_per_step: number;
}

export interface SessionsGrowthResult {
  runner: string;
  points: SessionsPoint[];
  seed_s: number;
}

/**
 * Growth with the table: a new session's one-tool turn (time, DynamoDB requests and bytes read per
 * step) with the bench user's one session in the table, then again after `GROWTH_SESSIONS` more of
 * that user's sessions were made through the API (`POST /api/v2/sessions`, as a client would).
 */
export async function sessionsGrowth(ctx: BenchContext, runner: Runner, log: (line: string) => void): Promise<SessionsGrowthResult> {
  const server = runner.server;
  if (!server) throw new Error('sessions growth needs a runner with stores');
  await ctx.fake.plan({ toolSteps: 1, callsPerStep: 1, answer: SHORT_ANSWER });
  await runner.open().send(userMessage(0));
  const points = [await measure(ctx, runner, 1)];
  const started = performance.now();
  let made = 0;
  const make = async () => {
    while (made < GROWTH_SESSIONS) {
      const number = ++made;
      const response = await fetch(`${server.url}/api/v2/sessions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${BENCH_ZERO_KEY}` }, body: '{}' });
      if (!response.ok) throw new Error(`making session ${number}: ${response.status} ${await response.text()}`);
      await response.arrayBuffer();
      if (number % 2000 === 0) log(`  ${number} sessions asked for`);
    }
  };
  await Promise.all(Array.from({ length: 16 }, make));
  const seed_s = (performance.now() - started) / 1000;
  points.push(await measure(ctx, runner, 1 + SAMPLES + GROWTH_SESSIONS));
  return { runner: runner.name, points, seed_s };
}

async function measure(ctx: BenchContext, runner: Runner, sessions: number): Promise<SessionsPoint> {
  const samples: Omit<SessionsPoint, 'sessions'>[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    await ctx.fake.reset();
    await ctx.resetStoreRequests();
    const t0 = performance.now();
    await runner.open().send(userMessage(i + 1));
    const turnMs = performance.now() - t0;
    // Requests after the turn's end (the lease's release) land within a moment.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const requests = await ctx.storeRequests();
    const stats = await ctx.fake.stats();
    const [tool, answer] = [...stats.responses].sort((a, b) => a.arrived - b.arrived);
    const reads = requests.filter((r) => !r.write);
    samples.push({
      turn_ms: turnMs,
      step_gap_ms: answer!.arrived - tool!.ended,
      reads_per_step: reads.reduce((sum, r) => sum + r.count, 0) / 2,
      writes_per_step: requests.filter((r) => r.write).reduce((sum, r) => sum + r.count, 0) / 2,
      read_bytes_per_step: reads.reduce((sum, r) => sum + r.bytes, 0) / 2,
    });
  }
  const pick = (key: keyof Omit<SessionsPoint, 'sessions'>) => median(samples.map((s) => s[key]));
  return { sessions, turn_ms: pick('turn_ms'), step_gap_ms: pick('step_gap_ms'), reads_per_step: pick('reads_per_step'), writes_per_step: pick('writes_per_step'), read_bytes_per_step: pick('read_bytes_per_step') };
}
