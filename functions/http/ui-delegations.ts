import type { Delegation, StreamEvent } from '@zero/core/wire';
import type { ZeroUIMessageChunk } from './ui-message-stream';

/** A text update is sent once this much text waits, or this long after the last one (the next event sends it). */
const TEXT_BATCH_CHARS = 200;
const TEXT_BATCH_MS = 150;

/**
 * The events of child runs (delegated tasks, tagged `parent_run_id`) as
 * `data-delegation` parts, one per child run, each re-sent whole as it grows
 * (the AI SDK replaces a data part with the same id in place). Without this,
 * a delegate's words would run into the caller's answer.
 */
export class DelegationParts {
  private readonly shown = new Map<string, Delegation>();
  private readonly sentAt = new Map<string, { chars: number; at: number }>();

  /** Takes one child-run event; yields the updated part when there is something to show. */
  *take(event: StreamEvent & { run_id?: string; parent_run_id?: string; agent_id?: string }): Generator<ZeroUIMessageChunk> {
    const runId = event.run_id;
    if (!runId || !event.parent_run_id) return;
    let part = this.shown.get(runId);
    if (!part) {
      const from = event.type === 'agent_switch' ? (event.from ?? '') : '';
      part = { run_id: runId, parent_run_id: event.parent_run_id, from, to: event.agent_id ?? '', text: '', tools: [] };
      this.shown.set(runId, part);
    }
    switch (event.type) {
      case 'agent_switch':
        if (event.reason === 'delegate') {
          part.from = event.from ?? part.from;
          part.to = event.to;
          if (event.tool_call_id) part.tool_call_id = event.tool_call_id;
        } else if (event.reason === 'return') {
          part.status = event.status;
          if (event.usage) part.usage = event.usage;
        }
        break;
      case 'text': {
        part.text += event.delta;
        const sent = this.sentAt.get(runId) ?? { chars: 0, at: 0 };
        if (part.text.length - sent.chars < TEXT_BATCH_CHARS && Date.now() - sent.at < TEXT_BATCH_MS) return;
        break;
      }
      case 'tool_call':
        // Words after a tool call start a new paragraph.
        if (part.text && !part.text.endsWith('\n')) part.text += '\n\n';
        part.tools.push({ id: event.id, name: event.name, input: event.input ?? {}, state: 'running' });
        break;
      case 'tool_result': {
        const tool = part.tools.find((t) => t.id === event.id);
        if (tool) Object.assign(tool, { state: event.is_error ? 'failed' : 'done', output: event.content });
        break;
      }
      case 'confirmation_required': {
        // The delegate's call waits for a person: the console shows Approve / Deny under it.
        const tool = part.tools.find((t) => t.id === event.id);
        if (tool) tool.state = 'waiting';
        break;
      }
      case 'error':
        part.status = 'error';
        break;
      default:
        // Deltas of a tool's input, retries, thinking: the delegation shows the finished calls and words.
        return;
    }
    yield* this.send(part);
  }

  private *send(part: Delegation): Generator<ZeroUIMessageChunk> {
    this.sentAt.set(part.run_id, { chars: part.text.length, at: Date.now() });
    yield { type: 'data-delegation', id: part.run_id, data: structuredClone(part) };
  }
}
