import type { Runner } from '../runners/runner';
import type { BenchContext } from '../support/context';
import { median } from '../support/stats';
import { SHORT_ANSWER, userMessage } from '../workload';

export const GROWTH_TURNS = 300;
/** Turns reported, each as the median of the turns around it (single turns are noisy). */
const CHECKPOINTS = [1, 100, 200, 300];
const WINDOW = 5;

export interface GrowthTurn {
  turn: number;
  /** Session steps at the end of this turn (two per turn). */
  step: number;
  turn_ms: number;
  start_ms: number;
  /** The tool step's gap on the fake's clock: response end → next request (tool, persistence, next request). */
  step_gap_ms: number;
  /** Write requests dynalite served during the turn (the last turn's lease release may fall into the next). */
  dynamodb_writes: number;
  /** Read requests dynalite served during the turn, and the bytes it answered them with. */
  dynamodb_reads: number;
  dynamodb_read_bytes: number;
  dynamodb_bytes: number;
  bytes_per_step: number;
  /** Size of the model request body (the whole history, for every runner alike). */
  request_tokens: number;
}

export interface GrowthResult {
  runner: string;
  turns: GrowthTurn[];
}

/** Scenario 5: one session of `GROWTH_TURNS` turns (tool call, then answer): per-turn latency and DynamoDB bytes written. */
export async function growth(ctx: BenchContext, runner: Runner): Promise<GrowthResult> {
  const server = runner.server;
  if (!server) throw new Error('growth needs a runner with stores');
  await ctx.fake.plan({ toolSteps: 1, callsPerStep: 1, answer: SHORT_ANSWER });
  const session = runner.open();
  const all: GrowthTurn[] = [];
  for (let turn = 1; turn <= GROWTH_TURNS; turn++) {
    await ctx.fake.reset();
    await ctx.resetStoreRequests();
    const before = (await server.stats()).persistence;
    const t0 = performance.now();
    const result = await session.send(userMessage(turn));
    const turnMs = performance.now() - t0;
    const after = (await server.stats()).persistence;
    const requests = await ctx.storeRequests();
    const writes = requests.filter((c) => c.write).reduce((sum, c) => sum + c.count, 0);
    const reads = requests.filter((c) => !c.write);
    const stats = await ctx.fake.stats();
    const [tool, answer] = [...stats.responses].sort((a, b) => a.arrived - b.arrived);
    const bill = stats.bills.at(-1)!;
    all.push({
      turn,
      step: turn * 2,
      turn_ms: turnMs,
      start_ms: result.firstEventMs ?? Number.NaN,
      step_gap_ms: answer!.arrived - tool!.ended,
      dynamodb_writes: writes,
      dynamodb_reads: reads.reduce((sum, c) => sum + c.count, 0),
      dynamodb_read_bytes: reads.reduce((sum, c) => sum + c.bytes, 0),
      dynamodb_bytes: after.bytes - before.bytes,
      bytes_per_step: (after.bytes - before.bytes) / 2,
      request_tokens: bill.input_tokens + bill.cache_read_input_tokens + bill.cache_creation_input_tokens,
    });
  }
  const turns = CHECKPOINTS.map((checkpoint) => {
    const window = all.filter((t) => Math.abs(t.turn - checkpoint) <= WINDOW);
    const pick = (key: keyof GrowthTurn) => median(window.map((t) => t[key]));
    const exact = all[checkpoint - 1]!;
    return {
      ...exact,
      turn_ms: pick('turn_ms'),
      start_ms: pick('start_ms'),
      step_gap_ms: pick('step_gap_ms'),
    };
  });
  return { runner: runner.name, turns };
}
