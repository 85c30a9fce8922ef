import type { DelegateTool, Delegation, StreamEvent } from '@zero/agent/wire';
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
      part = { run_id: runId, parent_run_id: event.parent_run_id, from, to: event.agent_id ?? '', items: [] };
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
        const last = part.items.at(-1);
        if (last?.type === 'text') last.text += event.delta;
        else part.items.push({ type: 'text', text: event.delta });
        const chars = textLength(part);
        const sent = this.sentAt.get(runId) ?? { chars: 0, at: 0 };
        if (chars - sent.chars < TEXT_BATCH_CHARS && Date.now() - sent.at < TEXT_BATCH_MS) return;
        break;
      }
      case 'tool_call':
        part.items.push({ type: 'tool', id: event.id, name: event.name, input: event.input ?? {}, state: 'running' });
        break;
      case 'tool_result': {
        const tool = toolOf(part, event.id);
        if (tool) Object.assign(tool, { state: event.is_error ? 'failed' : 'done', output: event.content });
        break;
      }
      case 'confirmation_required': {
        // The delegate's call waits for a person: the console shows Approve / Deny under it.
        const tool = toolOf(part, event.id);
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
    this.sentAt.set(part.run_id, { chars: textLength(part), at: Date.now() });
    yield { type: 'data-delegation', id: part.run_id, data: structuredClone(part) };
  }
}

const textLength = (part: Delegation) => part.items.reduce((sum, item) => sum + (item.type === 'text' ? item.text.length : 0), 0);
const toolOf = (part: Delegation, id: string) => part.items.find((item): item is DelegateTool => item.type === 'tool' && item.id === id);
