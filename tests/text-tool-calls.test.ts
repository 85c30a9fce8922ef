import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { syncAgents } from '../local/stack';
import { getJson, startHarness, type Harness } from './support/harness';
import { chatStream, type ReceivedEvent } from './support/sse';

type ToolResultEvent = Extract<ReceivedEvent, { type: 'tool_result' }>;
const textOf = (events: ReceivedEvent[]) => events.flatMap((e) => (e.type === 'text' ? [e.delta] : [])).join('');
const resultsOf = (events: ReceivedEvent[]) => events.filter((e): e is ToolResultEvent => e.type === 'tool_result');

describe('an agent with tools on a model its endpoint serves without tool calling', () => {
  let h: Harness;
  beforeAll(async () => {
    // `tiny` is declared without tools (ZERO_PROVIDER_FAKEAI_NO_TOOLS=tiny).
    h = await startHarness({ openai: { noTools: ['tiny'] } });
    const dir = mkdtempSync(join(tmpdir(), 'zero-text-tools-'));
    writeFileSync(join(dir, 'tiny-tools.md'), '---\nname: tiny-tools\ndescription: An agent with tools on a model without tool calling.\nmodel: fakeai:tiny\ntools: echo\n---\n\n## Role\n\nYou echo.\n');
    await syncAgents(h.stack.store, dir);
  });
  afterAll(() => h.close());
  afterEach(() => h.openai!.reset());

  it('loads instead of being refused, and runs its tools through <tool_call> blocks: described in the system prompt, parsed from the answer, results sent back as text', async () => {
    const { json } = await getJson(`${h.url}/api/v2/agents`);
    expect(json.agents.map((a: { id: string }) => a.id)).toContain('tiny-tools');

    h.openai!.script(
      // The block arrives cut across chunks, its tag too.
      { text: ['Let me echo. <tool', '_call>{"name": "echo", ', '"input": {"text": "hi"}}</tool_', 'call>'] },
      { text: 'It said hi.' },
    );
    const { events } = await chatStream(h.url, { agent_id: 'tiny-tools', message: 'echo hi' });

    const [first, second] = h.openai!.requests;
    // No native tools: the protocol and each tool's schema are in the system message.
    expect(first!.body.tools).toBeUndefined();
    const system = first!.body.messages[0] as { role: string; content: string };
    expect(system.role).toBe('system');
    expect(system.content).toContain('<tool_call>{"name": "<tool name>", "input": {');
    expect(system.content).toMatch(/### echo\n.*\nInput schema: \{"type":"object"/);

    // The call ran as any call does; no part of its block was shown as text.
    expect(events.find((e) => e.type === 'tool_call')).toMatchObject({ name: 'echo', input: { text: 'hi' } });
    expect(resultsOf(events)).toEqual([expect.objectContaining({ name: 'echo', content: 'echo: hi', is_error: false })]);
    expect(textOf(events)).toBe('Let me echo. It said hi.');
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'completed', steps: 2 });

    // The model reads its call back as it wrote it, and the result as text in the next user message.
    const id = (events.find((e) => e.type === 'tool_call') as { id: string }).id;
    expect(second!.body.messages.slice(-3)).toEqual([
      { role: 'user', content: expect.stringContaining('echo hi') },
      { role: 'assistant', content: 'Let me echo.\n\n<tool_call>{"name":"echo","input":{"text":"hi"}}</tool_call>' },
      { role: 'user', content: `<tool_result id="${id}">\necho: hi\n</tool_result>` },
    ]);
    expect(JSON.stringify(second!.body)).not.toContain('"tool_calls"');
    expect(second!.body.tools).toBeUndefined();
  });

  it('answers a malformed block with an error result that says what is wrong, sent back as text, and goes on', async () => {
    h.openai!.script(
      {
        text:
          '<tool_call>echo hi</tool_call> <tool_call>{"input": {"text": "a"}}</tool_call> ' +
          '<tool_call>{"name": "echo", "input": "hi"}</tool_call> <tool_call>{"name": "echo", "arguments": {"text": "ZAP\'s spelling"}}</tool_call>',
      },
      { text: 'Once more: <tool_call>{"name": "echo", "input": {"text": "b"}' },
      { text: 'I give up.' },
    );
    const { events } = await chatStream(h.url, { agent_id: 'tiny-tools', message: 'echo badly' });
    const results = resultsOf(events).map((r) => ({ name: r.name, content: r.content, is_error: r.is_error }));
    expect(results).toEqual([
      { name: 'malformed_tool_call', content: 'The tool call was not run: the <tool_call> block is not JSON; write {"name": "<tool>", "input": {…}}.', is_error: true },
      { name: 'malformed_tool_call', content: "The tool call was not run: the <tool_call> block's name must be the name of a tool.", is_error: true },
      { name: 'echo', content: "The tool call was not run: the <tool_call> block's input must be a JSON object.", is_error: true },
      { name: 'echo', content: "echo: ZAP's spelling", is_error: false },
      { name: 'malformed_tool_call', content: 'The tool call was not run: the <tool_call> block was not closed with </tool_call>.', is_error: true },
    ]);
    expect(textOf(events)).not.toContain('<tool_call>');
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'completed', steps: 3 });
    // The errors went back to the model as error results, in its own protocol.
    const sent = h.openai!.requests[1]!.body.messages.at(-1) as { role: string; content: string };
    expect(sent.role).toBe('user');
    expect(sent.content.match(/<tool_result id="[^"]+" error="true">/g)).toHaveLength(3);
    expect(sent.content).toContain("the <tool_call> block's input must be a JSON object");
    expect(h.openai!.requests[2]!.body.messages.at(-1)).toMatchObject({ role: 'user', content: expect.stringContaining('was not closed with </tool_call>') });
  });
});
