import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventSourceParserStream } from 'eventsource-parser/stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { limitsFromEnv } from '@zero/agent/loop/limits';
import { syncAgents } from '../local/stack';
import { cliEnv, runCli } from './support/cli';
import { DEV, DEV_KEY, getJson, postJson, startHarness, type Harness } from './support/harness';
import { chatStream, type ReceivedEvent } from './support/sse';

type ToolResultEvent = Extract<ReceivedEvent, { type: 'tool_result' }>;
const usageOf = (events: ReceivedEvent[], tool: string) =>
  events.flatMap((e) => (e.type === 'tool_usage' && e.tool === tool ? [{ calls: e.calls, limit: e.limit, remaining: e.remaining }] : []));
const resultsOf = (events: ReceivedEvent[]) => events.filter((e): e is ToolResultEvent => e.type === 'tool_result');
const echoes = (n: number, from = 1) => Array.from({ length: n }, (_, i) => ({ id: `toolu_echo_${from + i}`, name: 'echo', input: { text: `#${from + i}` } }));

async function syncAgentFiles(h: Harness, agents: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), 'zero-tool-limits-'));
  for (const [id, front] of Object.entries(agents)) {
    writeFileSync(join(dir, `${id}.md`), `---\nname: ${id}\ndescription: ${id} of the tool limit tests.\n${front}\n---\n\n## Role\n\nYou are ${id}.\n`);
  }
  await syncAgents(h.stack.store, dir);
}

describe('tool_usage events and per-tool limits', () => {
  let h: Harness;
  beforeAll(async () => {
    // The deployment: 5 calls of any tool, but 3 of echo (ZERO_TOOL_LIMITS).
    h = await startHarness({ limits: { maxCallsPerTool: 5, toolLimits: { echo: 3 } } });
    await syncAgentFiles(h, {
      // ZAP's `SetToolLimit("echo", 2)` and Agent Zero's `max_tool_iterations`, in an agent file.
      capped: 'tools: echo, slow\ntool_limits:\n  echo: 2\n  slow: 9\nmax_tool_iterations: 2',
      'bad-limits': 'tools: echo\ntool_limits:\n  echo: 0',
      'bad-iterations': 'tools: echo\nmax_tool_iterations: many',
    });
  });
  afterAll(() => h.close());
  afterEach(() => h.fake.reset());

  it('streams each tool’s calls so far, its limit and what remains; a call over ZERO_TOOL_LIMITS gets an error result naming it', async () => {
    h.fake.script({ toolCalls: [...echoes(2), { name: 'slow', input: { ms: 1 } }] }, { toolCalls: echoes(2, 3) }, { text: 'Enough echoes.' });
    const { events } = await chatStream(h.url, { agent_id: 'tester', message: 'echo four times' });
    expect(usageOf(events, 'echo')).toEqual([
      { calls: 1, limit: 3, remaining: 2 },
      { calls: 2, limit: 3, remaining: 1 },
      { calls: 3, limit: 3, remaining: 0 },
      { calls: 3, limit: 3, remaining: 0 },
    ]);
    // A tool the map does not name keeps ZERO_MAX_CALLS_PER_TOOL.
    expect(usageOf(events, 'slow')).toEqual([{ calls: 1, limit: 5, remaining: 4 }]);
    expect(events.find((e) => e.type === 'tool_usage')).toMatchObject({ total_limit: 100, agent_id: 'tester', run_id: expect.any(String) });
    const refused = resultsOf(events).find((r) => r.id === 'toolu_echo_4');
    expect(refused).toMatchObject({ is_error: true, content: 'Not run: limit reached for echo (3 calls per run, ZERO_TOOL_LIMITS). Answer with what you have.' });
    expect(resultsOf(events).filter((r) => r.name === 'echo' && !r.is_error)).toHaveLength(3);
    // Each tool_usage comes after its call and before its result.
    const at = (type: string, id?: string) => events.findIndex((e) => e.type === type && (!id || (e as { id?: string }).id === id));
    expect(at('tool_call', 'toolu_echo_1')).toBeLessThan(at('tool_usage'));
    expect(at('tool_usage')).toBeLessThan(at('tool_result'));
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'completed' });
  });

  it('sends tool_usage as a transient data part of the UI message stream, one id per tool', async () => {
    h.fake.script({ toolCalls: echoes(2) }, { text: 'ok' });
    const response = await fetch(`${h.url}/api/v2/ui/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...DEV },
      body: JSON.stringify({ id: `chat-${crypto.randomUUID().slice(0, 8)}`, trigger: 'submit-message', messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'echo twice' }] }], agent_id: 'tester' }),
    });
    const chunks: { type: string; id?: string; data?: unknown; transient?: boolean }[] = [];
    const reader = response.body!.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      if (value.data !== '[DONE]') chunks.push(JSON.parse(value.data));
    }
    expect(chunks.filter((c) => c.type === 'data-tool-usage')).toEqual([
      { type: 'data-tool-usage', id: 'tool-usage-echo', data: { tool: 'echo', calls: 1, limit: 3, remaining: 2, total_calls: 1, total_limit: 100 }, transient: true },
      { type: 'data-tool-usage', id: 'tool-usage-echo', data: { tool: 'echo', calls: 2, limit: 3, remaining: 1, total_calls: 2, total_limit: 100 }, transient: true },
    ]);
  });

  it("the CLI's tool lines say when a tool's limit is reached", async () => {
    h.fake.script({ toolCalls: echoes(4) }, { text: 'Four asked, three echoed.' });
    const run = await runCli(['-q', 'echo four times', '--agent', 'tester'], { env: cliEnv({ ZERO_URL: h.url, ZERO_KEY: DEV_KEY }) });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('Four asked, three echoed.\n');
    const lines = run.stderr.split('\n').filter((l) => l.includes('echo'));
    expect(lines.find((l) => l.includes('#1'))).toBe('✓ echo #1 — echo: #1');
    // The third call used the last one; the fourth was refused.
    expect(lines.filter((l) => l.includes('[3/3, limit reached]'))).toHaveLength(2);
    expect(lines.find((l) => l.includes('#4'))).toContain('✗ echo #4 [3/3, limit reached] — Not run: limit reached for echo');
  });

  it("an agent file's tool_limits tighten the deployment's (the stricter wins), and its max_tool_iterations ends the tool loop", async () => {
    h.fake.script({ toolCalls: [...echoes(3), { name: 'slow', input: { ms: 1 } }] }, { toolCalls: echoes(1, 4) }, { text: 'never asked' });
    const { events } = await chatStream(h.url, { agent_id: 'capped', message: 'echo' });
    expect(usageOf(events, 'echo')).toEqual([
      { calls: 1, limit: 2, remaining: 1 },
      { calls: 2, limit: 2, remaining: 0 },
      { calls: 2, limit: 2, remaining: 0 },
      { calls: 2, limit: 2, remaining: 0 },
    ]);
    // The agent's 9 for slow is looser than the deployment's 5: 5 holds.
    expect(usageOf(events, 'slow')).toEqual([{ calls: 1, limit: 5, remaining: 4 }]);
    expect(resultsOf(events).find((r) => r.id === 'toolu_echo_3')).toMatchObject({ is_error: true, content: expect.stringContaining("limit reached for echo (2 calls per run, the agent's tool_limits)") });
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'limit', steps: 2, reason: 'tool iteration limit reached (max_tool_iterations 2)' });
    expect(h.fake.requests).toHaveLength(2);
  });

  it("a request's max_tool_iterations caps its run, and is kept for the run's continuation", async () => {
    h.fake.script({ toolCalls: echoes(1) }, { text: 'never asked' });
    const { events } = await chatStream(h.url, { agent_id: 'tester', message: 'one step only', max_tool_iterations: 1 });
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'limit', steps: 1, reason: 'tool iteration limit reached (max_tool_iterations 1)' });
    expect(h.fake.requests).toHaveLength(1);
    const start = events.find((e) => e.type === 'start') as { session_id: string };
    const log = await h.server.runtime.sessions.readLog(start.session_id);
    expect(log.find((r) => r.kind === 'user_message')).toMatchObject({ max_tool_iterations: 1 });
    // The agent's 2 is stricter than a request's 5.
    h.fake.reset();
    h.fake.script({ toolCalls: echoes(1) }, { toolCalls: echoes(1, 2) }, { text: 'never asked' });
    const capped = await chatStream(h.url, { agent_id: 'capped', message: 'go on', max_tool_iterations: 5 });
    expect(capped.events.at(-1)).toMatchObject({ type: 'done', status: 'limit', steps: 2 });
  });

  it('refuses a malformed limit with a 400, an agent file that does not load, or a start-up error naming it', async () => {
    const bad = await postJson(`${h.url}/api/v2/chat`, { agent_id: 'tester', message: 'hi', max_tool_iterations: 0 });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.json)).toContain('max_tool_iterations');
    const { json } = await getJson(`${h.url}/api/v2/agents`);
    expect(json.errors).toEqual(
      expect.arrayContaining([
        { file: 'agents/bad-limits.md', field: 'tool_limits.echo', message: 'tool_limits.echo: must be at least 1' },
        { file: 'agents/bad-iterations.md', field: 'max_tool_iterations', message: 'max_tool_iterations: must be a whole number' },
      ]),
    );
    expect(limitsFromEnv({ ZERO_TOOL_LIMITS: '{"http_request": 25}' }).toolLimits).toEqual({ http_request: 25 });
    expect(() => limitsFromEnv({ ZERO_TOOL_LIMITS: '{"http_request": 0}' })).toThrow('ZERO_TOOL_LIMITS: http_request: must be at least 1');
    expect(() => limitsFromEnv({ ZERO_TOOL_LIMITS: '{"http_request": "lots"}' })).toThrow('ZERO_TOOL_LIMITS: http_request: must be a whole number of calls');
    expect(() => limitsFromEnv({ ZERO_TOOL_LIMITS: 'http_request=25' })).toThrow('ZERO_TOOL_LIMITS must be JSON');
  });
});
