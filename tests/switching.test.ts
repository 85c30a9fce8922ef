import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DirAgentCatalog } from '@zero/agent/definitions/catalog';
import { ToolRegistry } from '@zero/agent/tools/registry';
import { builtinTools } from '../functions/create-runtime';
import type { StreamEvent } from '@zero/agent/wire/events';
import { startChildServer } from './support/child';
import { DEV, getJson, postJson, startHarness, type Harness, childConfig } from './support/harness';
import { chatStream, chatUntil } from './support/sse';

const systemText = (request: { body: { system?: unknown } }) => JSON.stringify(request.body.system);

describe('switching agents in a session', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ leaseTtlMs: 1500 });
  });
  afterAll(() => h.close());
  afterEach(() => h.fake.reset());

  it('agent_id on a chat request switches the active agent; the new agent sees the history', async () => {
    h.fake.script({ text: 'Tester here.' });
    const first = await chatStream(h.url, { agent_id: 'tester', message: 'who are you?' });
    const sessionId = (first.events[0] as Extract<StreamEvent, { type: 'start' }>).session_id;
    expect(first.events.some((e) => e.type === 'agent_switch')).toBe(false);

    h.fake.script({ text: 'Cereal now.' });
    const second = await chatStream(h.url, { session_id: sessionId, agent_id: 'cereal', message: 'check the lockfile' });
    expect(second.events.slice(0, 3).map((e) => e.type)).toEqual(['start', 'agent_switch', 'message']);
    expect(second.events[1]).toMatchObject({ from: 'tester', to: 'cereal', reason: 'switch', agent_id: 'cereal' });
    const request = h.fake.requests.at(-1)!;
    expect(systemText(request)).toContain('You are Cereal');
    expect(JSON.stringify(request.body.messages)).toContain('Tester here.');

    // The switch sticks: the next message without agent_id goes to cereal, with no new switch.
    h.fake.script({ text: 'Still Cereal.' });
    const third = await chatStream(h.url, { session_id: sessionId, message: 'and now?' });
    expect(third.events.some((e) => e.type === 'agent_switch')).toBe(false);
    expect(systemText(h.fake.requests.at(-1)!)).toContain('You are Cereal');
  });

  it('POST /sessions/:id/agent switches for the next message, whose stream starts with the switch', async () => {
    h.fake.script({ text: 'Tester here.' });
    const first = await chatStream(h.url, { agent_id: 'tester', message: 'hello' });
    const sessionId = (first.events[0] as Extract<StreamEvent, { type: 'start' }>).session_id;

    const switched = await postJson(`${h.url}/api/v2/sessions/${sessionId}/agent`, { agent_id: 'zero' });
    expect(switched.status).toBe(200);
    expect(switched.json).toMatchObject({ from: 'tester', to: 'zero', session: { agent_id: 'zero' } });

    const unknown = await postJson(`${h.url}/api/v2/sessions/${sessionId}/agent`, { agent_id: 'ghost' });
    expect(unknown.status).toBe(404);
    expect(unknown.json.error).toMatchObject({ code: 'agent_not_found', message: expect.stringContaining('cereal') });
    const invalid = await postJson(`${h.url}/api/v2/sessions/${sessionId}/agent`, { agent: 'zero' });
    expect(invalid.status).toBe(400);
    const viewer = await h.userHeaders('watcher-1');
    await fetch(`${h.url}/api/v2/sessions/${sessionId}/members/watcher-1`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', ...DEV },
      body: JSON.stringify({ role: 'viewer' }),
    });
    expect((await postJson(`${h.url}/api/v2/sessions/${sessionId}/agent`, { agent_id: 'cereal' }, viewer)).status).toBe(403);

    h.fake.script({ text: 'Zero here; I read what Tester said.' });
    const next = await chatStream(h.url, { session_id: sessionId, message: 'who is on?' });
    expect(next.events[1]).toMatchObject({ type: 'agent_switch', from: 'tester', to: 'zero', reason: 'switch' });
    expect(JSON.stringify(h.fake.requests.at(-1)!.body.messages)).toContain('Tester here.');
  });

  it('voice is chosen per request, falling back to the agent’s default', async () => {
    h.fake.script({ text: 'a' }, { text: 'b' }, { text: 'c' });
    const first = await chatStream(h.url, { agent_id: 'cereal', message: 'hello' });
    const sessionId = (first.events[0] as Extract<StreamEvent, { type: 'start' }>).session_id;
    await chatStream(h.url, { session_id: sessionId, message: 'terse please', voice_mode: 'minimal' });
    await chatStream(h.url, { session_id: sessionId, message: 'and now in your own voice' });
    const [byDefault, minimal, again] = h.fake.requests.map(systemText);
    expect(byDefault).toContain('read too many lockfiles');
    expect(minimal).toContain('Tables and bullets only');
    expect(minimal).not.toContain('read too many lockfiles');
    expect(again).toContain('read too many lockfiles');
  });

  it('a process killed during a child run: the parent is resumed and carries the child on from its records', async () => {
    const child = await startChildServer(childConfig(h, 1500));
    try {
      h.fake.script(
        { toolCalls: [{ id: 'toolu_handoff', name: 'delegate_agent', input: { agent_id: 'relay-b', task: 'take your time' } }] },
        { text: 'Working on it.', toolCalls: [{ id: 'toolu_long', name: 'slow', input: { ms: 60_000 } }] },
      );
      const { sessionId } = await chatUntil(child.url, { agent_id: 'relay-a', message: 'delegate, then die' }, (e) => e.type === 'tool_call' && e.name === 'slow');
      // Die while the child's tool runs, once the child's step is durable.
      for (let i = 0; i < 100; i++) {
        const { json } = await getJson(`${h.url}/api/v2/sessions/${sessionId}`);
        if (json.history.some((r: { kind: string; parent_run_id?: string }) => r.kind === 'assistant' && r.parent_run_id)) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      await child.kill();

      // The next process resumes the parent run, which carries its child on from the child's own records.
      h.fake.respondWith((request) => {
        const system = JSON.stringify(request.body.system);
        if (system.includes('You are Relay-b')) return { text: 'Relay-b picked up after the crash.' };
        return { text: JSON.stringify(request.body.messages).includes('picked up after the crash') && request.body.messages.length <= 3 ? 'Relay-b says it picked up.' : 'Still here.' };
      });
      const next = await postJson(`${h.url}/api/v2/chat`, { session_id: sessionId, message: 'are you there?' });
      expect(next.json).toMatchObject({ status: 'completed' });

      const { json } = await getJson(`${h.url}/api/v2/sessions/${sessionId}`);
      const childRecords = json.history.filter((r: { parent_run_id?: string }) => r.parent_run_id);
      // The task was recorded once; the child went on after its interrupted step and finished.
      expect(childRecords.map((r: { kind: string }) => r.kind)).toEqual(['user_message', 'assistant', 'assistant', 'run_end']);
      const childRequest = h.fake.requests.find((r) => JSON.stringify(r.body.system).includes('You are Relay-b') && r.body.messages.length > 1)!;
      expect(JSON.stringify(childRequest.body.messages)).toContain('interrupted before it returned');
      const parentResult = json.history.find((r: { kind: string; tool_use_id?: string }) => r.kind === 'tool_result' && r.tool_use_id === 'toolu_handoff');
      expect(parentResult).toMatchObject({ content: 'Relay-b picked up after the crash.' });
      // The session's conversation never includes the child's own steps.
      expect(JSON.stringify(h.fake.requests.at(-1)!.body.messages)).not.toContain('toolu_long');
    } finally {
      await child.kill();
    }
  });
});

describe('the shipped agents', () => {
  it('all load without warnings, with a role, a process, every voice and delegation rules that name real agents', async () => {
    const tools = new ToolRegistry(builtinTools());
    const { agents, errors } = await new DirAgentCatalog(join(import.meta.dirname, '..', 'agents'), { knownTools: tools.names() }).load();
    expect(errors).toEqual([]);
    expect([...agents.keys()].sort()).toEqual(['cereal', 'nikon', 'phreak', 'zap', 'zero']);
    for (const agent of agents.values()) {
      expect(agent.warnings, agent.id).toEqual([]);
      expect(agent.role.length, agent.id).toBeGreaterThan(100);
      expect(agent.capabilities.length, agent.id).toBeGreaterThanOrEqual(3);
      expect(agent.process, agent.id).toMatch(/^1\. /);
      expect(Object.keys(agent.voices).sort(), agent.id).toEqual(['full', 'minimal', 'neutral']);
      for (const rule of agent.delegation) {
        expect(agents.has(rule.agent_id), `${agent.id} → ${rule.agent_id}`).toBe(true);
        expect(rule.when, `${agent.id} → ${rule.agent_id}`).not.toBe('');
      }
      // An agent delegates exactly when it has rules to delegate by.
      expect(agent.tools.includes('delegate_agent'), agent.id).toBe(agent.delegation.length > 0);
    }
    expect(agents.get('zero')!.delegation.map((r) => r.agent_id)).toEqual(['cereal', 'phreak', 'nikon', 'zap']);
    expect(agents.get('cereal')!.tools).toEqual(expect.arrayContaining(['get_analysis', 'read_file', 'grep', 'glob']));
    expect(agents.get('phreak')!.tools).toEqual(expect.arrayContaining(['web_search', 'web_fetch']));
    expect(agents.get('zap')!.tools).toEqual(expect.arrayContaining(['list_requests', 'run_request', 'save_request', 'save_baseline', 'check_regression', 'parse_stack_trace', 'http_request']));
  });
});
