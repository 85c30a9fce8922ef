import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './support/harness';
import { chatStream, type ReceivedEvent } from './support/sse';

type ToolResultEvent = Extract<ReceivedEvent, { type: 'tool_result' }>;
/** Tool results in the order the model called the tools (they finish in any order). */
const results = (events: ReceivedEvent[]) => {
  const calls = events.filter((e) => e.type === 'tool_call').map((e) => (e as { id: string }).id);
  const byId = new Map(events.filter((e) => e.type === 'tool_result').map((e) => [(e as ToolResultEvent).id, e as ToolResultEvent]));
  return calls.map((id) => byId.get(id)!);
};
const done = (events: ReceivedEvent[]) => events.at(-1) as Extract<ReceivedEvent, { type: 'done' }>;

describe('the tool-use loop', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ limits: { maxSteps: 4, maxCallsPerTool: 3, maxToolOutputChars: 1000, toolTimeoutMs: 2000 } });
  });
  afterAll(() => h.close());
  afterEach(() => h.fake.reset());

  it('answers an unknown tool, invalid input and a failing tool with error results, and goes on', async () => {
    h.fake.script(
      {
        toolCalls: [
          { name: 'no_such_tool', input: {} },
          { name: 'echo', input: { text: 42 } },
          { name: 'boom', input: {} },
        ],
      },
      { text: 'Recovered.' },
    );
    const { events } = await chatStream(h.url, { agent_id: 'tester', message: 'break things' });
    const [unknown, invalid, failed] = results(events);
    expect(unknown).toMatchObject({ is_error: true, content: expect.stringContaining('Unknown tool "no_such_tool"') });
    expect(invalid).toMatchObject({ is_error: true, content: expect.stringContaining('text') });
    expect(failed).toMatchObject({ is_error: true, content: expect.stringContaining('the boom tool exploded') });
    expect(done(events)).toMatchObject({ status: 'completed', steps: 2 });
    // The model saw all three errors.
    const sent = JSON.stringify(h.fake.requests[1]!.body.messages.at(-1));
    expect(sent).toContain('no_such_tool');
    expect(sent).toContain('"is_error":true');
  });

  it('runs the tool calls of one step concurrently', async () => {
    h.fake.script(
      {
        toolCalls: [
          { name: 'slow', input: { ms: 150 } },
          { name: 'slow', input: { ms: 150 } },
        ],
      },
      { text: 'Both done.' },
    );
    const { events } = await chatStream(h.url, { agent_id: 'tester', message: 'two slow ones' });
    expect(results(events).map((r) => r.content)).toEqual(['waited 150 ms', 'waited 150 ms']);
    expect(h.tools.maxConcurrent()).toBe(2);
  });

  it('cuts long tool output with a notice the model sees', async () => {
    h.fake.script({ toolCalls: [{ name: 'big', input: { chars: 5000 } }] }, { text: 'ok' });
    const { events } = await chatStream(h.url, { agent_id: 'tester', message: 'big' });
    const [result] = results(events);
    expect(result!.truncated).toBe(true);
    expect(result!.content).toContain('[output truncated: 4000 of 5000 characters omitted]');
    expect(JSON.stringify(h.fake.requests[1]!.body.messages)).toContain('output truncated');
  });

  it('stops a tool at its timeout with an error result', async () => {
    h.fake.script({ toolCalls: [{ name: 'slow', input: { ms: 20_000 } }] }, { text: 'ok' });
    const { events } = await chatStream(h.url, { agent_id: 'tester', message: 'too slow' });
    expect(results(events)[0]).toMatchObject({ is_error: true, content: expect.stringContaining('timed out after 2000 ms') });
    expect(done(events).status).toBe('completed');
  });

  it('refuses calls past the per-tool limit', async () => {
    h.fake.script({ toolCalls: [1, 2, 3, 4].map((n) => ({ name: 'echo', input: { text: `#${n}` } })) }, { text: 'ok' });
    const { events } = await chatStream(h.url, { agent_id: 'tester', message: 'many' });
    const r = results(events);
    expect(r.filter((x) => !x.is_error)).toHaveLength(3);
    expect(r.filter((x) => x.is_error)[0]!.content).toContain('limit reached for echo (3 calls per run, ZERO_MAX_CALLS_PER_TOOL)');
  });

  it('ends the run at the step limit with status limit', async () => {
    h.fake.respondWith(() => ({ toolCalls: [{ name: 'get_agent_info', input: {} }] }));
    const { events } = await chatStream(h.url, { agent_id: 'tester', message: 'loop forever' });
    expect(done(events)).toMatchObject({ status: 'limit', steps: 4, reason: expect.stringContaining('step limit') });
    expect(h.fake.requests).toHaveLength(4);
  });

  it('get_agent_info describes an agent and lists them all', async () => {
    h.fake.script(
      {
        toolCalls: [
          { name: 'get_agent_info', input: { agent_id: 'cereal' } },
          { name: 'get_agent_info', input: {} },
          { name: 'get_agent_info', input: { agent_id: 'ghost' } },
        ],
      },
      { text: 'ok' },
    );
    const { events } = await chatStream(h.url, { agent_id: 'tester', message: 'who is there' });
    const [cereal, all, ghost] = results(events);
    expect(cereal!.content).toContain('# Cereal (cereal)');
    expect(cereal!.content).toContain('## Capabilities');
    expect(all!.content).toMatch(/^- zero \(Zero(, [^)]+)?\): /m);
    expect(ghost).toMatchObject({ is_error: true, content: expect.stringContaining('available agents') });
  });
});
