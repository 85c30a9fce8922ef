import type { HistoryRecord, Usage } from '@zero/agent/wire';
import type { ConsoleMessage } from './history';

/** What a session's answers used in all: tokens and dollars, and how many runs. */
export interface SessionCost {
  runs: number;
  tokens: number;
  cost: number;
}

/**
 * The session's cost as the console shows it, live: each ended run once, by its run id, whichever
 * told of it first: every branch's stored `run_end` (an answer set aside by an edit still cost what it
 * cost), an answer that finished streaming here, or a `done` event of another member's run. A run
 * still waiting for approval is not counted yet; a delegate's use is in its caller's.
 */
export function sessionCost(records: readonly HistoryRecord[], messages: readonly ConsoleMessage[], ended: ReadonlyMap<string, Usage>): SessionCost {
  const byRun = new Map<string, Usage>(ended);
  for (const r of records) if (r.kind === 'run_end' && !r.parent_run_id) byRun.set(r.run_id, r.usage);
  for (const m of messages) {
    const meta = m.metadata;
    if (m.role === 'assistant' && meta?.usage && meta.status && meta.status !== 'awaiting_approval') byRun.set(m.id, meta.usage);
  }
  let tokens = 0;
  let cost = 0;
  for (const usage of byRun.values()) {
    tokens += usage.input_tokens + usage.output_tokens;
    cost += usage.cost_usd;
  }
  return { runs: byRun.size, tokens, cost };
}
