import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { RunDelegator } from '@zero/runtime/run/delegate';
import { defineTool } from '@zero/runtime/tools/tool';
import { requireAgent } from '@zero/agent/definitions/catalog';
import { toMessages } from '@zero/agent/loop/history';
import type { LogRecord, NewLogRecord } from '@zero/runtime/store/items/log-record';
import type { StreamEvent } from '@zero/agent/wire/events';
import type { FakeRequest, FakeTurn } from './support/fake-anthropic';
import { getJson, startHarness, type Harness } from './support/harness';
import { chatStream, type ReceivedEvent } from './support/sse';

/** The agent a model request comes from, read from its system prompt ("You are Cereal, an agent of Zero."). */
const callerOf = (request: FakeRequest) => {
  const system = Array.isArray(request.body.system) ? request.body.system[0]!.text : (request.body.system ?? '');
  return /^You are (.+?), an agent of Zero/.exec(system)?.[1]?.toLowerCase() ?? '?';
};
/** Whether the request's last message carries tool results (the agent is past its first step). */
const hasResults = (request: FakeRequest) => JSON.stringify(request.body.messages.at(-1)).includes('"tool_result"');

/**
 * The stream as a readable trace: one line per event, consecutive text of
 * one run folded into one line.
 */
function trace(events: ReceivedEvent[]): string[] {
  const lines: string[] = [];
  let lastText = '';
  for (const e of events) {
    const who = 'agent_id' in e && e.agent_id ? e.agent_id : '-';
    let line: string;
    if (e.type === 'text') {
      const key = `text ${who}`;
      if (lastText === key) continue;
      line = key;
    } else if (e.type === 'tool_call' || e.type === 'tool_result') line = `${e.type} ${who} ${e.name}`;
    else if (e.type === 'agent_switch') line = `agent_switch ${e.from}→${e.to} (${e.reason})`;
    else line = `${e.type} ${who}`;
    lastText = e.type === 'text' ? line : '';
    lines.push(line);
  }
  return lines;
}

const usage = { input_tokens: 100, output_tokens: 10 };

describe('agents that delegate', () => {
  let h: Harness;
  const waiting: (() => void)[] = [];
  /** Answers once two calls are waiting, proving that two child runs were working at the same time. */
  const rendezvous = defineTool({
    name: 'rendezvous',
    description: 'Wait for the other caller.',
    input: z.object({ name: z.string() }),
    async execute({ name }, { signal }) {
      return new Promise<string>((resolve) => {
        const meet = () => resolve(`${name} met the other caller`);
        waiting.push(meet);
        if (waiting.length === 2) for (const wake of waiting.splice(0)) wake();
        signal.addEventListener('abort', () => resolve(`${name} waited alone`));
      });
    },
    timeoutMs: 10_000,
  });

  beforeAll(async () => {
    h = await startHarness({ limits: { maxDelegationDepth: 2 }, extraTools: [rendezvous] });
  });
  afterAll(() => h.close());
  afterEach(() => h.fake.reset());

  it('zero hands a task to cereal, streams cereal’s work tagged with its run, and answers with its findings', async () => {
    h.fake.script(
      {
        text: 'Bringing in Cereal for the lockfile.',
        toolCalls: [{ id: 'toolu_deleg', name: 'delegate_agent', input: { agent_id: 'cereal', task: 'Which dependencies of acme/web are vulnerable?', context: 'The user cares about lodash.' } }],
        usage,
      },
      { toolCalls: [{ id: 'toolu_info', name: 'get_agent_info', input: { agent_id: 'phreak' } }], usage },
      { text: 'lodash 4.17.20 is vulnerable (CVE-2021-23337); upgrade to 4.17.21.', usage },
      { text: 'Cereal found one problem: lodash 4.17.20. Upgrade it.', usage },
    );
    const { events } = await chatStream(h.url, { agent_id: 'zero', message: 'Is acme/web safe?' });

    expect(trace(events)).toEqual([
      'start zero',
      'message -',
      'text zero',
      'tool_call zero delegate_agent',
      'tool_usage zero',
      'agent_switch zero→cereal (delegate)',
      'tool_call cereal get_agent_info',
      'tool_usage cereal',
      'tool_result cereal get_agent_info',
      'text cereal',
      'agent_switch cereal→zero (return)',
      'tool_result zero delegate_agent',
      'text zero',
      'done -',
    ]);
    const start = events[0] as Extract<StreamEvent, { type: 'start' }>;
    const parentRun = start.run_id;
    const [toZero, toCereal] = [events.filter((e) => e.type === 'agent_switch')[1]!, events.filter((e) => e.type === 'agent_switch')[0]!] as Extract<
      StreamEvent,
      { type: 'agent_switch' }
    >[];
    const childRun = toCereal!.run_id!;
    expect(childRun).not.toBe(parentRun);
    expect(toCereal).toMatchObject({ agent_id: 'cereal', parent_run_id: parentRun, tool_call_id: 'toolu_deleg' });
    // Every event of cereal's is tagged with its agent, its run and the run that delegated to it.
    for (const e of events.filter((x) => 'agent_id' in x && x.agent_id === 'cereal')) {
      expect(e).toMatchObject({ run_id: childRun, parent_run_id: parentRun });
    }
    expect(toZero).toMatchObject({ status: 'completed', steps: 2, usage: { input_tokens: 200, output_tokens: 20 } });

    // Cereal's answer is zero's tool result; its usage rolls up into the one `done`.
    const result = events.find((e) => e.type === 'tool_result' && e.name === 'delegate_agent') as Extract<StreamEvent, { type: 'tool_result' }>;
    expect(result).toMatchObject({ is_error: false, content: 'lodash 4.17.20 is vulnerable (CVE-2021-23337); upgrade to 4.17.21.', run_id: parentRun });
    expect(events.at(-1)).toMatchObject({ type: 'done', run_id: parentRun, status: 'completed', usage: { input_tokens: 400, output_tokens: 40 } });
    expect(events.filter((e) => e.type === 'done')).toHaveLength(1);

    // Cereal ran as itself, with the task and context and without zero's conversation.
    const [, cerealFirst, , zeroSecond] = h.fake.requests;
    expect(callerOf(cerealFirst!)).toBe('cereal');
    const task = JSON.stringify(cerealFirst!.body.messages);
    expect(cerealFirst!.body.messages).toHaveLength(1);
    expect(task).toContain('Zero (zero) delegated this task to you');
    expect(task).toContain('The user cares about lodash.');
    expect(task).not.toContain('Is acme/web safe?');
    expect(cerealFirst!.body.tools!.map((t) => t.name)).toContain('get_analysis');
    // Zero's next step sees cereal's answer, not cereal's own steps.
    expect(JSON.stringify(zeroSecond!.body.messages)).toContain('upgrade to 4.17.21');
    expect(JSON.stringify(zeroSecond!.body.messages)).not.toContain('toolu_info');

    // The child run is in the session log, tagged; a follow-up message sees only zero's conversation.
    const { json } = await getJson(`${h.url}/api/v2/sessions/${start.session_id}`);
    const child = json.history.filter((r: LogRecord) => r.run_id === childRun);
    expect(child.map((r: LogRecord) => r.kind)).toEqual(['user_message', 'assistant', 'tool_result', 'assistant', 'run_end']);
    expect(child.every((r: LogRecord) => r.parent_run_id === parentRun)).toBe(true);
    h.fake.script({ text: 'Yes, that was lodash.' });
    await chatStream(h.url, { session_id: start.session_id, message: 'Which package was it?' });
    const followUp = h.fake.requests.at(-1)!.body.messages;
    expect(followUp.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);
    expect(JSON.stringify(followUp)).not.toContain('delegated this task to you');
  });

  it('refuses a delegation the caller’s rules do not allow, listing whom it may ask, and an input without a task', async () => {
    h.fake.script(
      {
        toolCalls: [
          { id: 'toolu_forbidden', name: 'delegate_agent', input: { agent_id: 'tester', task: 'Run the tests.' } },
          { id: 'toolu_invalid', name: 'delegate_agent', input: { agent_id: 'cereal' } },
        ],
      },
      { text: 'I will do it myself.' },
    );
    const { events } = await chatStream(h.url, { agent_id: 'zero', message: 'go' });
    const results = events.filter((e) => e.type === 'tool_result') as Extract<StreamEvent, { type: 'tool_result' }>[];
    const [forbidden, invalid] = ['toolu_forbidden', 'toolu_invalid'].map((id) => results.find((r) => r.id === id));
    expect(forbidden).toMatchObject({ is_error: true, content: expect.stringContaining('zero may not delegate to "tester"') });
    for (const allowed of ['cereal', 'phreak', 'nikon', 'zap']) expect(forbidden!.content).toContain(allowed);
    expect(invalid).toMatchObject({ is_error: true, content: expect.stringContaining('task') });
    expect(events.some((e) => e.type === 'agent_switch')).toBe(false);
    expect(h.fake.requests).toHaveLength(2);
  });

  it('refuses a cycle and a delegation past the depth limit, and the chain still answers', async () => {
    const turn = (request: FakeRequest): FakeTurn => {
      const agent = callerOf(request);
      if (hasResults(request)) return { text: `${agent} done` };
      if (agent === 'relay-a') return { toolCalls: [{ name: 'delegate_agent', input: { agent_id: 'relay-b', task: 'pass it on' } }] };
      if (agent === 'relay-b')
        return {
          toolCalls: [
            { name: 'delegate_agent', input: { agent_id: 'relay-a', task: 'back to you' } },
            { name: 'delegate_agent', input: { agent_id: 'relay-c', task: 'pass it on' } },
          ],
        };
      if (agent === 'relay-c') return { toolCalls: [{ name: 'delegate_agent', input: { agent_id: 'relay-d', task: 'pass it on' } }] };
      return { text: 'relay-d should never run' };
    };
    h.fake.respondWith(turn);
    const { events } = await chatStream(h.url, { agent_id: 'relay-a', message: 'start the chain' });

    const results = events.filter((e) => e.type === 'tool_result') as Extract<StreamEvent, { type: 'tool_result' }>[];
    const byAgent = (agent: string) => results.filter((r) => r.agent_id === agent);
    const [cycle, toC] = ['relay-a', 'relay-c'].map((to) => byAgent('relay-b').find((r) => JSON.stringify(events.find((e) => e.type === 'tool_call' && e.id === r.id)).includes(`"agent_id":"${to}"`)));
    expect(cycle).toMatchObject({ is_error: true, content: expect.stringContaining('relay-a is already working on this request (relay-a → relay-b → relay-a)') });
    expect(toC).toMatchObject({ is_error: false, content: 'relay-c done' });
    expect(byAgent('relay-c')[0]).toMatchObject({ is_error: true, content: expect.stringContaining('may nest 2 levels deep') });
    expect(byAgent('relay-a')[0]).toMatchObject({ is_error: false, content: 'relay-b done' });
    expect(h.fake.requests.map(callerOf)).not.toContain('relay-d');

    // Nested child runs name their own parent.
    const switches = events.filter((e) => e.type === 'agent_switch') as Extract<StreamEvent, { type: 'agent_switch' }>[];
    expect(switches.map((s) => `${s.from}→${s.to}`)).toEqual(['relay-a→relay-b', 'relay-b→relay-c', 'relay-c→relay-b', 'relay-b→relay-a']);
    expect(switches[1]!.parent_run_id).toBe(switches[0]!.run_id);
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'completed' });
  });

  it('runs two delegations of one step at the same time, with distinguishable events', async () => {
    h.fake.respondWith((request) => {
      const agent = callerOf(request);
      if (agent === 'relay-b') {
        if (hasResults(request)) return { text: 'both answered' };
        return {
          toolCalls: [
            { id: 'toolu_to_a', name: 'delegate_agent', input: { agent_id: 'relay-a', task: 'meet c' } },
            { id: 'toolu_to_c', name: 'delegate_agent', input: { agent_id: 'relay-c', task: 'meet a' } },
          ],
        };
      }
      if (hasResults(request)) return { text: `${agent} reporting back`, deltaDelayMs: 2 };
      return { text: `${agent} starting`, toolCalls: [{ name: 'rendezvous', input: { name: agent } }] };
    });
    const { events } = await chatStream(h.url, { agent_id: 'relay-b', message: 'fan out' });

    const results = events.filter((e) => e.type === 'tool_result') as Extract<StreamEvent, { type: 'tool_result' }>[];
    // Each child waited in `rendezvous` until the other arrived: they ran concurrently.
    expect(results.filter((r) => r.name === 'rendezvous').map((r) => r.content).sort()).toEqual(['relay-a met the other caller', 'relay-c met the other caller']);
    const delegated = results.filter((r) => r.name === 'delegate_agent');
    expect(delegated.find((r) => r.id === 'toolu_to_a')).toMatchObject({ content: 'relay-a reporting back', is_error: false });
    expect(delegated.find((r) => r.id === 'toolu_to_c')).toMatchObject({ content: 'relay-c reporting back', is_error: false });

    // Two child runs, each with its own run id; every child event carries the right agent for its run.
    const starts = events.filter((e) => e.type === 'agent_switch' && e.reason === 'delegate') as Extract<StreamEvent, { type: 'agent_switch' }>[];
    expect(starts.map((s) => s.tool_call_id).sort()).toEqual(['toolu_to_a', 'toolu_to_c']);
    const agentOfRun = new Map(starts.map((s) => [s.run_id!, s.to]));
    expect(agentOfRun.size).toBe(2);
    for (const e of events) {
      if ('run_id' in e && e.run_id && agentOfRun.has(e.run_id) && 'agent_id' in e) expect(e.agent_id).toBe(agentOfRun.get(e.run_id));
    }
    const text = (run: string) => events.filter((e) => e.type === 'text' && e.run_id === run).map((e) => (e as { delta: string }).delta).join('');
    for (const [run, agent] of agentOfRun) expect(text(run)).toBe(`${agent} starting${agent} reporting back`);
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'completed' });
  });

  it('answers a non-streaming chat with the top-level text and a summary of the delegations', async () => {
    h.fake.script(
      { toolCalls: [{ name: 'delegate_agent', input: { agent_id: 'relay-c', task: 'say hi' } }], usage },
      { text: 'hi from c', usage },
      { text: 'c said hi', usage },
    );
    const response = await fetch(`${h.url}/api/v2/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer zdev_test_key_for_the_harness_0001' },
      body: JSON.stringify({ agent_id: 'relay-b', message: 'delegate once' }),
    });
    const json = await response.json();
    expect(json).toMatchObject({
      status: 'completed',
      text: 'c said hi',
      usage: { input_tokens: 300 },
      delegations: [{ agent_id: 'relay-c', status: 'completed', usage: { input_tokens: 100 } }],
    });
    expect(json.tool_calls).toEqual([expect.objectContaining({ name: 'delegate_agent', result: 'hi from c' })]);
  });

  it('resumes a child run from its records when the parent is resumed, and reuses a finished one', async () => {
    const rt = h.server.runtime;
    const sessionId = 'resume-child';
    await rt.sessions.createSession({ session_id: sessionId, title: 'resume', agent_id: 'relay-a', created_at: 'now', updated_at: 'now' });
    // The log as a crash left it: relay-a delegated to relay-b, which had done one step.
    const parentRun = 'run_parent';
    const childRun = `${parentRun}:toolu_r`;
    let seq = 0;
    const log: LogRecord[] = [];
    const append = async (record: NewLogRecord) => {
      log.push(await rt.sessions.append(sessionId, ++seq, record));
    };
    const task = 'Relay-a (relay-a) delegated this task to you:\n\necho twice';
    await append({ kind: 'user_message', run_id: parentRun, text: 'start', agent_id: 'relay-a', model: 'claude-test-model', voice_mode: 'minimal' });
    await append({ kind: 'assistant', run_id: parentRun, step: 1, agent_id: 'relay-a', content: [{ type: 'tool_use', id: 'toolu_r', name: 'delegate_agent', input: { agent_id: 'relay-b', task: 'echo twice' } }], usage: { ...usage, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, cost_usd: 0 } });
    await append({ kind: 'user_message', run_id: childRun, parent_run_id: parentRun, text: task, agent_id: 'relay-b', model: 'claude-test-model', voice_mode: 'minimal' });
    await append({ kind: 'assistant', run_id: childRun, parent_run_id: parentRun, step: 1, agent_id: 'relay-b', content: [{ type: 'tool_use', id: 'toolu_e', name: 'echo', input: { text: 'one' } }], usage: { ...usage, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, cost_usd: 0 } });
    await append({ kind: 'tool_results', run_id: childRun, parent_run_id: parentRun, step: 1, results: [{ type: 'tool_result', tool_use_id: 'toolu_e', content: 'echo: one' }] });

    const events: StreamEvent[] = [];
    const delegator = RunDelegator.forRun(
      { deps: rt, defaultModel: 'claude-test-model', sessionId, history: log, append, emit: (e) => events.push(e), deadline: Date.now() + 60_000 },
      await requireAgent(rt.catalog, 'relay-a'),
      parentRun,
    );
    h.fake.script({ text: 'echoed one, and now two' });
    const call = { toolCallId: 'toolu_r', signal: new AbortController().signal };
    const resumed = await delegator.delegate({ agentId: 'relay-b', task: 'echo twice' }, call);
    expect(resumed).toMatchObject({ content: 'echoed one, and now two' });
    // relay-b went on from where it was: its task was not recorded twice, and the model saw its first step.
    const sent = h.fake.requests[0]!.body.messages;
    expect(sent.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(JSON.stringify(sent)).toContain('echo: one');
    expect(log.filter((r) => r.run_id === childRun).map((r) => r.kind)).toEqual(['user_message', 'assistant', 'tool_results', 'assistant', 'run_end']);
    expect(events.map((e) => e.type)).toEqual(['agent_switch', 'text', 'text', 'text', 'text', 'text', 'agent_switch']);

    // Asked again (the parent resumed once more), the finished child answers from the log without a model call.
    const again = await delegator.delegate({ agentId: 'relay-b', task: 'echo twice' }, call);
    expect(again).toMatchObject({ content: 'echoed one, and now two' });
    expect(h.fake.requests).toHaveLength(1);
    // The parent's conversation never includes the child's records.
    expect(JSON.stringify(toMessages(log))).not.toContain('echo: one');
  });
});
