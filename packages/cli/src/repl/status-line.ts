import type { SessionDetail } from '@zero/agent/wire';

/** What the REPL's status line says about a session. */
export interface SessionStatus {
  agent: string;
  /** The model of the last message (`provider:model` when a step fell back). */
  model?: string;
  /** Tokens the model read at the last step (input, cache read and cache write): how much of its context the conversation fills. */
  context: number;
  /** What the session's runs cost so far, in USD. */
  cost: number;
}

/** The status of a session from its detail: each run's end carries its usage (a child run's is already in its parent's). */
export function sessionStatus(detail: Pick<SessionDetail, 'session' | 'history'>): SessionStatus {
  let model: string | undefined;
  let context = 0;
  let cost = 0;
  for (const record of detail.history) {
    if (record.parent_run_id) continue;
    if (record.kind === 'user_message') model = record.model;
    if (record.kind === 'assistant') {
      context = record.usage.input_tokens + record.usage.cache_read_input_tokens + record.usage.cache_creation_input_tokens;
      if (record.model) model = record.model;
    }
    if (record.kind === 'run_end') cost += record.usage.cost_usd;
  }
  return { agent: detail.session.agent_id, model, context, cost };
}

/** `tester · claude-sonnet-4-5 · context 1.2k tokens · $0.0042` */
export function formatStatus(status: SessionStatus): string {
  const tokens = status.context >= 1000 ? `${(status.context / 1000).toFixed(1)}k` : String(status.context);
  return [status.agent, status.model ?? 'model not known yet', `context ${tokens} tokens`, `$${status.cost.toFixed(4)}`].join(' · ');
}
