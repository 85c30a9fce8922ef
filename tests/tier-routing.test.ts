import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runtimeConfigFromEnv } from '../functions/create-runtime';
import { syncAgents } from '../local/stack';
import { postJson, startHarness, type Harness } from './support/harness';
import { chatStream, type ReceivedEvent } from './support/sse';

const TIERS = { light: 'claude-light-test', standard: 'claude-standard-test', heavy: 'claude-heavy-test' };
const routingOf = (events: ReceivedEvent[]) => {
  const event = events.find((e) => e.type === 'routing');
  if (!event) return undefined;
  const { type: _type, event_id: _id, agent_id: _agent, run_id: _run, ...decision } = event as Record<string, unknown>;
  return decision;
};

describe('automatic tier routing by complexity (F1–F5)', () => {
  let h: Harness;
  const sentModel = () => h.fake.requests.at(-1)!.body.model;
  const sentTools = () => (h.fake.requests.at(-1)!.body.tools ?? []).map((t) => t.name).sort();
  beforeAll(async () => {
    h = await startHarness({
      tiers: TIERS,
      // The operator's rules: quick questions are F1, audits F5.
      complexityRules: [
        { match: '^what is', level: 'F1' },
        { match: '\\baudit\\b', level: 'F5' },
      ],
    });
    const dir = mkdtempSync(join(tmpdir(), 'zero-routing-'));
    writeFileSync(join(dir, 'quick.md'), '---\nname: quick\ndescription: Answers quick questions.\ntools: echo, slow\ncomplexity: F2\n---\n\n## Role\n\nYou answer.\n');
    await syncAgents(h.stack.store, dir);
  });
  afterAll(() => h.close());
  afterEach(() => h.fake.reset());

  it("an operator's rule routes a quick question to the light tier without tools, and an audit to the heavy tier with them; the decision is an event", async () => {
    h.fake.script({ text: 'A file of pinned versions.' });
    const quick = await chatStream(h.url, { agent_id: 'tester', message: 'What is a lockfile?' });
    expect(routingOf(quick.events)).toEqual({ level: 'F1', by: 'rule', rule: '^what is', tier: 'light', model: 'claude-light-test', tools: [] });
    expect(sentModel()).toBe('claude-light-test');
    expect(sentTools()).toEqual([]);
    const start = quick.events.find((e) => e.type === 'start') as { session_id: string };
    const log = await h.server.runtime.sessions.readLog(start.session_id);
    expect(log.find((r) => r.kind === 'user_message')).toMatchObject({ model: 'claude-light-test', routed_tools: [] });

    h.fake.script({ text: 'Audited.' });
    const audit = await chatStream(h.url, { agent_id: 'tester', message: 'Please audit the lockfile' });
    expect(routingOf(audit.events)).toMatchObject({ level: 'F5', by: 'rule', tier: 'heavy', model: 'claude-heavy-test' });
    expect(sentModel()).toBe('claude-heavy-test');
    expect(sentTools()).toContain('echo');
  });

  it("a request's complexity wins over the agent's, the agent's over the rules, and tools_required runs the loop with exactly those tools", async () => {
    h.fake.script({ text: 'Short.' });
    const byAgent = await chatStream(h.url, { agent_id: 'quick', message: 'Please audit this' });
    expect(routingOf(byAgent.events)).toEqual({ level: 'F2', by: 'agent', tier: 'light', model: 'claude-light-test', tools: [] });

    h.fake.script({ toolCalls: [{ name: 'echo', input: { text: 'x' } }] }, { text: 'Done.' });
    const byRequest = await chatStream(h.url, { agent_id: 'quick', message: 'What is next?', complexity: 'F3', tools_required: ['echo'] });
    expect(routingOf(byRequest.events)).toEqual({ level: 'F3', by: 'request', tier: 'standard', model: 'claude-standard-test', tools: ['echo'] });
    expect(sentModel()).toBe('claude-standard-test');
    expect(sentTools()).toEqual(['echo']);
    expect(byRequest.events.find((e) => e.type === 'tool_result')).toMatchObject({ content: 'echo: x', is_error: false });

    // No level from anyone: no routing, the agent's own model and tools.
    h.fake.script({ text: 'Plain.' });
    const plain = await chatStream(h.url, { agent_id: 'tester', message: 'Tell me about lockfiles' });
    expect(routingOf(plain.events)).toBeUndefined();
    expect(sentModel()).not.toMatch(/light|standard|heavy/);
  });

  it('refuses a level or a required tool it does not know with a 400, and malformed rules at start', async () => {
    const badLevel = await postJson(`${h.url}/api/v2/chat`, { agent_id: 'tester', message: 'hi', complexity: 'F9' });
    expect(badLevel.status).toBe(400);
    expect(JSON.stringify(badLevel.json)).toContain('complexity');
    const badTool = await postJson(`${h.url}/api/v2/chat`, { agent_id: 'tester', message: 'hi', tools_required: ['teleport'] });
    expect(badTool.status).toBe(400);
    expect(badTool.json.error).toMatchObject({ field: 'tools_required.0', message: expect.stringContaining('"teleport" is not one of Zero\'s tools') });
    expect(() => runtimeConfigFromEnv({ ZERO_COMPLEXITY_RULES: '[{"match": "(", "level": "F1"}]' }, h.stack.store)).toThrow('ZERO_COMPLEXITY_RULES: 0.match: must be a valid regular expression');
    expect(() => runtimeConfigFromEnv({ ZERO_COMPLEXITY_RULES: '[{"match": "x", "level": "F7"}]' }, h.stack.store)).toThrow('ZERO_COMPLEXITY_RULES: 0.level: must be one of F1');
  });
});
