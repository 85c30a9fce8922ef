import type { LogRecord } from '../store/records';

/** What a case's session did, read from its log: the facts checks and reports use. */
export interface CaseOutcome {
  /** How the last run ended (`completed`, `limit`, `error`, …); `unfinished` while a message is unanswered. */
  status: string;
  /** The last run's answer: the texts of its own assistant turns. */
  answer: string;
  /** Every tool call of the session's runs (delegated runs' included), in order. */
  toolCalls: { name: string; input: unknown; is_error?: boolean }[];
  steps: number;
  usage: { input_tokens: number; output_tokens: number; cost_usd: number };
  latencyMs: number;
  /** Runs ended (top-level). */
  runsEnded: number;
}

/** Reads a case's outcome from its session's log. */
export function caseOutcome(history: readonly LogRecord[]): CaseOutcome {
  const top = history.filter((r) => !r.parent_run_id);
  const ends = top.filter((r): r is Extract<LogRecord, { kind: 'run_end' }> => r.kind === 'run_end');
  const lastEnd = ends.at(-1);
  const errors = new Set<string>();
  for (const r of history) {
    if (r.kind === 'tool_result' && r.is_error) errors.add(r.tool_use_id);
    if (r.kind === 'tool_results') for (const x of r.results) if (x.is_error) errors.add(x.tool_use_id);
  }
  const toolCalls = history.flatMap((r) =>
    r.kind === 'assistant'
      ? (r.content as { type: string; id?: string; name?: string; input?: unknown }[]).flatMap((b) =>
          b.type === 'tool_use' || b.type === 'server_tool_use' ? [{ name: b.name ?? '', input: b.input ?? {}, ...(b.id && errors.has(b.id) ? { is_error: true } : {}) }] : [],
        )
      : [],
  );
  const answer = lastEnd
    ? top
        .filter((r): r is Extract<LogRecord, { kind: 'assistant' }> => r.kind === 'assistant' && r.run_id === lastEnd.run_id)
        .flatMap((r) => (r.content as { type: string; text?: string }[]).flatMap((b) => (b.type === 'text' && b.text?.trim() ? [b.text.trim()] : [])))
        .join('\n\n')
    : '';
  const first = top.find((r) => r.kind === 'user_message');
  const usage = { input_tokens: 0, output_tokens: 0, cost_usd: 0 };
  for (const e of ends) {
    usage.input_tokens += e.usage.input_tokens + e.usage.cache_read_input_tokens + e.usage.cache_creation_input_tokens;
    usage.output_tokens += e.usage.output_tokens;
    usage.cost_usd += e.usage.cost_usd;
  }
  return {
    status: lastEnd?.status ?? 'unfinished',
    answer,
    toolCalls,
    steps: ends.reduce((n, e) => n + e.steps, 0),
    usage,
    latencyMs: first && lastEnd ? Math.max(0, Date.parse(lastEnd.at) - Date.parse(first.at)) : 0,
    runsEnded: ends.length,
  };
}
