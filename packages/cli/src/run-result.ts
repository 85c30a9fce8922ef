import type { DoneStatus, StreamEvent, Usage } from '@zero/agent/wire';

/** What `--json` prints at the end of a run: the answer, the calls, the usage and how it ended. */
export interface RunResult {
  session_id?: string;
  run_id?: string;
  agent_id?: string;
  status: DoneStatus | 'error';
  text: string;
  tool_calls: { id: string; name: string; input: unknown; result?: string; is_error?: boolean; agent_id?: string }[];
  usage?: Usage;
  /** Calls waiting for a decision (`status: "awaiting_approval"`). */
  pending?: { id: string; name: string; input: unknown }[];
  error?: { code: string; message: string };
  reason?: string;
}

/** Folds a run's events into its result, as `POST /chat` without `stream` would answer (plus the session's id). */
export class RunCollector {
  readonly result: RunResult = { status: 'error', text: '', tool_calls: [] };
  private stepText = '';
  private readonly waiting = new Map<string, { id: string; name: string; input: unknown }>();

  add(event: StreamEvent): void {
    const r = this.result;
    if (event.type === 'start' && !r.run_id) Object.assign(r, { session_id: event.session_id, run_id: event.run_id, agent_id: event.agent_id });
    const own = !('run_id' in event) || !event.run_id || event.run_id === r.run_id;
    if (event.type === 'tool_call') r.tool_calls.push({ id: event.id, name: event.name, input: event.input, ...(own ? {} : { agent_id: event.agent_id }) });
    if (event.type === 'tool_result') {
      const call = r.tool_calls.find((t) => t.id === event.id);
      if (call) Object.assign(call, { result: event.content, is_error: event.is_error });
    }
    if (event.type === 'confirmation_required' || event.type === 'client_tool_call') this.waiting.set(event.id, { id: event.id, name: event.name, input: event.input });
    if (event.type === 'approval') this.waiting.delete(event.id);
    if (!own) return;
    if (event.type === 'text') this.stepText += event.delta;
    else if (event.type === 'retry') this.stepText = '';
    else if (event.type === 'tool_call') this.endStep();
    else if (event.type === 'error') r.error = { code: event.code, message: event.message };
    else if (event.type === 'done') {
      this.endStep();
      r.status = event.status;
      r.usage = event.usage;
      if (event.reason) r.reason = event.reason;
      if (event.status === 'awaiting_approval') r.pending = (event.pending ?? []).map((id) => this.waiting.get(id) ?? { id, name: '?', input: undefined });
      else delete r.pending;
    }
  }

  private endStep() {
    if (this.stepText.trim()) this.result.text = this.result.text ? `${this.result.text}\n\n${this.stepText.trim()}` : this.stepText.trim();
    this.stepText = '';
  }
}
