import type { LogRecord } from '../store/records';
import type { StreamEvent } from '@zero/agent/wire';
import { APPROVERS, approvalEvent } from './approvals';
import { doneOfEnd, doneOfWait } from '@zero/agent/records/done';

/**
 * Events derived from stored records, for the ones whose events never reached
 * the event log: a process that died (or froze past its lease) between
 * storing a record and writing its event batch. The instance that takes the
 * lease over writes them, so the live view misses no stored record.
 */

/** The key that ties an event to the record it reports; undefined for events no record stands for (text, start, retry…). */
export function eventKey(event: StreamEvent): string | undefined {
  switch (event.type) {
    case 'message':
      return `message:${event.run_id}`;
    case 'tool_call':
      return `call:${event.id}`;
    case 'tool_result':
      return `result:${event.id}`;
    case 'done':
      return event.status === 'awaiting_approval' ? `wait:${event.run_id}:${event.pending?.[0]}` : `end:${event.run_id}`;
    case 'confirmation_required':
    case 'client_tool_call':
      return `ask:${event.id}`;
    case 'approval':
      return `approval:${event.id}`;
    case 'handover':
      return `handover:${event.run_id}`;
    case 'compacted':
      return compactedKey(event.run_id, event.tokens_before, event.tokens_after);
    default:
      return undefined;
  }
}

/** The keys of the events a record's run emitted for it (none for records that have no event of their own). */
export function recordKeys(record: LogRecord): string[] {
  const child = !!record.parent_run_id;
  switch (record.kind) {
    // A child run's task and ending are reported by `agent_switch` events, not `message` and `done`.
    case 'user_message':
      return child || record.message_id === undefined ? [] : [`message:${record.run_id}`];
    case 'assistant':
      return toolUses(record).map((block) => `call:${block.id}`);
    case 'tool_result':
      return [`result:${record.tool_use_id}`];
    case 'run_end':
      return child ? [] : [`end:${record.run_id}`];
    case 'run_handover':
      return [`handover:${record.run_id}`];
    case 'approval_request':
      return [`ask:${record.tool_use_id}`];
    case 'approval':
      return [`approval:${record.tool_use_id}`];
    case 'run_wait':
      return [`wait:${record.run_id}:${record.pending[0]}`];
    case 'compaction':
      return [compactedKey(record.run_id, record.tokens_before, record.tokens_after)];
    default:
      return [];
  }
}

/** A compaction has no id of its own: its run and its token counts (the record's and its `compacted` event's) name it. */
const compactedKey = (runId: string | undefined, before: number, after: number) => `compacted:${runId}:${before}:${after}`;

/** Whether a record has events to derive: keyed ones, and an assistant turn's text. */
function reportable(record: LogRecord): boolean {
  return recordKeys(record).length > 0 || (record.kind === 'assistant' && textOf(record) !== '');
}

/**
 * The events of `candidates` (the log's last records, in order) that `logged`
 * (the event log's events, in order, reaching back at least to the earliest
 * candidate's event) lacks. Keyed records are missing when their key is
 * absent; an assistant turn's text, which no key identifies, when the turn
 * came after the run's last logged record, and then only the part of it the
 * log does not already hold.
 */
export function missingEvents(sessionId: string, candidates: readonly LogRecord[], logged: readonly StreamEvent[]): StreamEvent[] {
  const present = new Set<string>();
  for (const event of logged) {
    const key = eventKey(event);
    if (key) present.add(key);
  }
  const seqOf = new Map<string, number>();
  for (const record of candidates) for (const key of recordKeys(record)) seqOf.set(key, record.seq);

  // Per run: the last record the log reports, and the text streamed after that record's event.
  const frontier = new Map<string, number>();
  const textAfter = new Map<string, string>();
  for (const event of logged) {
    const runId = 'run_id' in event ? event.run_id : undefined;
    if (!runId) continue;
    const key = eventKey(event);
    const seq = key ? seqOf.get(key) : undefined;
    if (seq !== undefined && seq >= (frontier.get(runId) ?? 0)) {
      frontier.set(runId, seq);
      textAfter.set(runId, '');
    } else if (event.type === 'text') textAfter.set(runId, (textAfter.get(runId) ?? '') + event.delta);
    else if (event.type === 'retry') textAfter.set(runId, '');
  }

  const agentOf = new Map<string, string>();
  const out: StreamEvent[] = [];
  for (const record of candidates) {
    if (record.kind === 'user_message' || record.kind === 'assistant') agentOf.set(record.run_id, record.agent_id);
    if (!reportable(record)) continue;
    const keys = recordKeys(record);
    const missing = keys.length ? keys.some((key) => !present.has(key)) : record.seq > (frontier.get(record.run_id) ?? 0);
    if (!missing) continue;
    const origin = { ...(agentOf.has(record.run_id) ? { agent_id: agentOf.get(record.run_id) } : {}), run_id: record.run_id, ...(record.parent_run_id ? { parent_run_id: record.parent_run_id } : {}) };
    switch (record.kind) {
      case 'user_message':
        out.push({ type: 'message', message_id: record.message_id!, text: record.text, ...(record.author ? { author: record.author } : {}), run_id: record.run_id });
        break;
      case 'assistant': {
        const text = textOf(record);
        const streamed = textAfter.get(record.run_id) ?? '';
        textAfter.set(record.run_id, streamed.startsWith(text) ? streamed.slice(text.length) : '');
        const rest = text.startsWith(streamed) ? text.slice(streamed.length) : streamed.startsWith(text) ? '' : text;
        if (rest) out.push({ type: 'text', delta: rest, ...origin });
        for (const block of toolUses(record)) if (!present.has(`call:${block.id}`)) out.push({ type: 'tool_call', id: block.id, name: block.name, input: block.input, ...origin });
        break;
      }
      case 'tool_result':
        out.push({ type: 'tool_result', id: record.tool_use_id, name: record.name, content: record.content, is_error: !!record.is_error, ...origin });
        break;
      case 'run_end':
        if (record.error) out.push({ type: 'error', ...record.error, run_id: record.run_id });
        out.push(doneOfEnd(record));
        break;
      case 'run_handover':
        out.push({ type: 'handover', session_id: sessionId, run_id: record.run_id, reason: record.reason });
        break;
      case 'approval_request':
        if (record.client_tool) out.push({ type: 'client_tool_call', id: record.tool_use_id, name: record.name, input: record.input, may_answer: [...APPROVERS], ...origin });
        else out.push({ type: 'confirmation_required', id: record.tool_use_id, name: record.name, input: record.input, policy: record.policy, may_answer: [...APPROVERS], ...origin });
        break;
      case 'approval':
        out.push(approvalEvent(record));
        break;
      case 'run_wait':
        out.push(doneOfWait(record));
        break;
      case 'compaction':
        out.push({ type: 'compacted', tokens_before: record.tokens_before, tokens_after: record.tokens_after, turns_folded: record.turns_folded, ...origin });
        break;
    }
  }
  return out;
}

type AssistantRecord = Extract<LogRecord, { kind: 'assistant' }>;

function toolUses(record: AssistantRecord): { id: string; name: string; input: unknown }[] {
  return record.content.filter((b) => (b.type === 'tool_use' || b.type === 'server_tool_use') && typeof b.id === 'string') as never;
}

function textOf(record: AssistantRecord): string {
  return record.content
    .filter((b) => b.type === 'text')
    .map((b) => String(b.text ?? ''))
    .join('');
}
