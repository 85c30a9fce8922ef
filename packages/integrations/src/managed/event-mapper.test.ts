import { describe, expect, it } from 'vitest';
import type { IdentifiedEvent } from '@zero/agent/events/recorder';
import { compareManaged, createEventMapper, managedCursor, parseManagedCursor, type ManagedEvent } from './event-mapper';

const usage = { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 1, cache_creation_input_tokens: 2, cost_usd: 0 };
const run = 'run_1';
/** One run as Zero's log holds it: a start, the message, text in pieces, a custom tool call that waits. */
const log: IdentifiedEvent[] = [
  { type: 'start', session_id: 's', run_id: run, agent_id: 'a', event_id: '1.0' },
  { type: 'message', message_id: 1, text: 'Hi', run_id: run, event_id: '1.1' },
  { type: 'text', delta: 'Hel', event_id: '1.2' },
  { type: 'text', delta: 'lo', event_id: '2.0' },
  { type: 'tool_call_delta', id: 'toolu_1', name: 'ask_user', delta: '{', event_id: '2.1' },
  { type: 'tool_call', id: 'toolu_1', name: 'ask_user', input: { q: 'x' }, event_id: '2.2' },
  { type: 'client_tool_call', id: 'toolu_1', name: 'ask_user', input: { q: 'x' }, event_id: '2.3' },
  { type: 'done', run_id: run, status: 'awaiting_approval', pending: ['toolu_1'], steps: 1, usage, event_id: '2.4' },
];
const mapAll = (events: IdentifiedEvent[]) => {
  const map = createEventMapper(new Set(['ask_user']), () => 't');
  return events.flatMap((e) => map(e));
};

describe('the Managed Agents event mapping', () => {
  it("maps a run's events in the API's order, text pieces as one message, the waiting call as requires_action", () => {
    const out = mapAll(log);
    expect(out.map((e) => e.event.type)).toEqual([
      'user.message',
      'session.status_running',
      'span.model_request_start',
      'agent.message',
      'agent.custom_tool_use',
      'span.model_request_end',
      'session.usage',
      'session.status_idle',
    ]);
    expect(out[3]!.event.content).toEqual([{ type: 'text', text: 'Hello' }]);
    expect(out.at(-1)!.event.stop_reason).toEqual({ type: 'requires_action', event_ids: ['toolu_1'] });
    expect(out.at(-3)!.event.model_usage).toEqual({ input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 1, cache_creation_input_tokens: 2 });
  });

  it('previews a message only when asked, under the id the message ends with, and never moves a cursor for it', () => {
    const map = createEventMapper(new Set(['ask_user']), () => 't', new Set(), new Set(['agent.message']));
    const out = log.flatMap((e) => map(e));
    const previews = out.filter((e) => e.preview);
    const message = out.find((e) => e.event.type === 'agent.message')!;
    expect(previews.map((e) => e.event)).toEqual([
      { type: 'event_start', event: { id: message.event.id, type: 'agent.message' } },
      { type: 'event_delta', event_id: message.event.id, delta: { type: 'content_delta', index: 0, content: { type: 'text', text: 'Hel' } } },
      { type: 'event_delta', event_id: message.event.id, delta: { type: 'content_delta', index: 0, content: { type: 'text', text: 'lo' } } },
    ]);
    // The same events and cursors as without previews.
    expect(out.filter((e) => !e.preview)).toEqual(mapAll(log));
  });

  it('gives every event a distinct cursor that only grows, so a reader resuming after any one misses and repeats nothing', () => {
    const out = mapAll(log);
    for (let i = 1; i < out.length; i++) expect(compareManaged(out[i - 1]!, out[i]!)).toBeLessThan(0);
    for (const [i, cut] of out.entries()) {
      const after = parseManagedCursor(managedCursor(cut))!;
      const resumed: ManagedEvent[] = mapAll(log).filter((e) => compareManaged(e, after) > 0);
      expect(resumed.map((e) => e.event.id)).toEqual(out.slice(i + 1).map((e) => e.event.id));
    }
  });
});
