import type { Runner } from '../runners/runner';
import type { BenchContext } from '../support/context';
import type { TracedPath } from '../support/db-trace';
import type { RequestCount } from '../support/dynamo-requests';
import { sum } from '../support/stats';
import { SHORT_ANSWER, userMessage } from '../workload';

/** One-tool turns measured, after two warm-up turns in the same session. */
const TURNS = 10;
/** A longer run, for the cost of one more tool step inside a run. */
const LONG_RUN_TOOL_STEPS = 11;
/** A streamed answer lasting about two seconds (the event log is written on a timer while text streams). */
const STREAMED = { deltas: 40, delayMs: 50 };
/** Requests the server sends after the client has its `done` (the lease's release, the inbox's next look) land within this. */
const SETTLE_MS = 150;

export interface RequestRow {
  operation: string;
  write: boolean;
  item: string;
  condition_failed: boolean;
  per_turn: number;
}

export interface RequestsResult {
  turns: number;
  /** Steps per one-tool turn: the tool step and the answer step. */
  steps_per_turn: 2;
  writes_per_step: number;
  reads_per_step: number;
  /** Every request of a turn (a warm session), as the table saw it. */
  rows: RequestRow[];
  /** The same requests by the code path that sent them (Zero's frames). */
  paths: (TracedPath & { per_turn: number })[];
  /** One more tool step inside a run: (writes of an 11-tool-step turn − writes of a 1-tool-step turn) ÷ 10. */
  marginal_tool_step: { writes: number; reads: number };
  /** Event-log writes per second while an answer streams (text is batched on a timer). */
  event_writes_per_streamed_second: number;
}

/**
 * Counts the DynamoDB requests of a steady-state one-tool turn (a warm
 * session: user message → one tool step → a short answer), as the emulator
 * served them, and which of Zero's code paths sent each.
 */
export async function requestsPerStep(ctx: BenchContext, zero: Runner): Promise<RequestsResult> {
  const server = zero.server;
  if (!server) throw new Error('requestsPerStep needs a runner with stores');
  const session = zero.open();
  await ctx.fake.plan({ toolSteps: 1, callsPerStep: 1, answer: SHORT_ANSWER });
  for (let turn = 0; turn < 2; turn++) await session.send(userMessage(turn));
  await settle();

  await ctx.resetStoreRequests();
  await server.startTrace();
  for (let turn = 0; turn < TURNS; turn++) await session.send(userMessage(turn + 2));
  await settle();
  const counts = await ctx.storeRequests();
  const paths = await server.stopTrace();
  const oneTool = totals(counts);

  await ctx.fake.plan({ toolSteps: LONG_RUN_TOOL_STEPS, callsPerStep: 1, answer: SHORT_ANSWER });
  const long = totals(await countTurn(ctx, () => session.send(userMessage(100))));

  const answer = Array.from({ length: STREAMED.deltas }, (_, i) => `word${i} `);
  await ctx.fake.plan({ toolSteps: 0, callsPerStep: 0, answer, deltaDelayMs: STREAMED.delayMs });
  const streamed = await countTurn(ctx, () => session.send(userMessage(101)));
  const streamedSeconds = (STREAMED.deltas * STREAMED.delayMs) / 1000;
  const eventWrites = (list: RequestCount[]) => sum(list.filter((c) => c.write && c.item === 'EVT').map((c) => c.count));

  const steps = TURNS * 2;
  return {
    turns: TURNS,
    steps_per_turn: 2,
    writes_per_step: oneTool.writes / steps,
    reads_per_step: oneTool.reads / steps,
    rows: counts
      .map((c) => ({ operation: c.operation, write: c.write, item: c.item, condition_failed: c.conditionFailed, per_turn: c.count / TURNS }))
      .sort((a, b) => Number(b.write) - Number(a.write) || b.per_turn - a.per_turn || a.item.localeCompare(b.item)),
    paths: paths.map((p) => ({ ...p, per_turn: p.count / TURNS })).sort((a, b) => b.per_turn - a.per_turn),
    marginal_tool_step: {
      writes: (long.writes - oneTool.writes / TURNS) / (LONG_RUN_TOOL_STEPS - 1),
      reads: (long.reads - oneTool.reads / TURNS) / (LONG_RUN_TOOL_STEPS - 1),
    },
    // Over what a turn writes to the event log without streaming.
    event_writes_per_streamed_second: (eventWrites(streamed) - eventWrites(counts) / TURNS) / streamedSeconds,
  };
}

async function countTurn(ctx: BenchContext, turn: () => Promise<unknown>): Promise<RequestCount[]> {
  await ctx.resetStoreRequests();
  await turn();
  await settle();
  return ctx.storeRequests();
}

function totals(counts: RequestCount[]) {
  return {
    writes: sum(counts.filter((c) => c.write).map((c) => c.count)),
    reads: sum(counts.filter((c) => !c.write).map((c) => c.count)),
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
