import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { syncAgents } from '../local/stack';
import { getJson, startHarness, type Harness } from './support/harness';
import { chatStream } from './support/sse';

describe('model tiers: a cheap specialist on a cheap model', () => {
  let h: Harness;
  beforeAll(async () => {
    // light runs on the OpenAI-compatible endpoint, heavy on a bigger Claude; standard is not mapped.
    h = await startHarness({ openai: {}, tiers: { light: 'fakeai:small-model', heavy: 'claude-heavy-model' } });
    const dir = mkdtempSync(join(tmpdir(), 'zero-tiers-'));
    const file = (name: string, front: string) => `---\nname: ${name}\ndescription: ${name} of the tier tests.\n${front}\n---\n\n## Role\n\nYou are ${name}.\n`;
    writeFileSync(join(dir, 'tier-scout.md'), file('Scout', 'tier: light\ntools: echo, delegate_agent\ndelegates_to: tier-expert'));
    writeFileSync(join(dir, 'tier-expert.md'), file('Expert', 'model: claude-test-model\ntools: echo'));
    writeFileSync(join(dir, 'tier-plain.md'), file('Plain', 'tier: standard\ntools: echo'));
    writeFileSync(join(dir, 'tier-both.md'), file('Both', 'model: claude-test-model\ntier: light\ntools: echo'));
    await syncAgents(h.stack.store, dir);
  });
  afterAll(() => h.close());
  afterEach(() => {
    h.fake.reset();
    h.openai!.reset();
  });

  it('runs an agent that asks for a tier on the deployment’s model of that tier, and lists it so', async () => {
    h.openai!.script({ text: 'Scouted.' });
    const { events } = await chatStream(h.url, { agent_id: 'tier-scout', message: 'look around' });
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'completed' });
    expect(h.openai!.requests.map((r) => r.body.model)).toEqual(['small-model']);
    expect(h.fake.requests).toHaveLength(0);

    const { json } = await getJson(`${h.url}/api/v2/agents`);
    const byId = Object.fromEntries(json.agents.map((a: { id: string }) => [a.id, a]));
    expect(byId['tier-scout']).toMatchObject({ model: 'fakeai:small-model', tier: 'light' });
    // A tier the deployment does not map runs on its default model.
    expect(byId['tier-plain']).toMatchObject({ model: 'claude-sonnet-4-6', tier: 'standard' });
    // A model named in the file wins over a tier, with a warning.
    expect(byId['tier-both'].model).toBe('claude-test-model');
    expect(byId['tier-both'].warnings).toContain('tier "light" is ignored: model "claude-test-model" is named');
  });

  it('runs a delegate on the tier its delegation asks for instead of its own model', async () => {
    h.openai!.script(
      { toolCalls: [{ id: 'call_d', name: 'delegate_agent', input: { agent_id: 'tier-expert', task: 'Think hard.', tier: 'heavy' } }] },
      { text: 'The expert says 42.' },
    );
    h.fake.script({ text: '42, after long thought.' });
    const { events } = await chatStream(h.url, { agent_id: 'tier-scout', message: 'ask the expert' });

    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'completed' });
    expect(h.fake.requests.map((r) => r.body.model)).toEqual(['claude-heavy-model']);
    expect(JSON.stringify(h.openai!.requests[1]!.body.messages.at(-1))).toContain('42, after long thought.');
  });

  it('refuses a delegation that asks for a tier that does not exist, naming the field', async () => {
    h.openai!.script(
      { toolCalls: [{ id: 'call_x', name: 'delegate_agent', input: { agent_id: 'tier-expert', task: 'Think.', tier: 'huge' } }] },
      { text: 'Could not.' },
    );
    const { events } = await chatStream(h.url, { agent_id: 'tier-scout', message: 'ask badly' });
    expect(events.find((e) => e.type === 'tool_result')).toMatchObject({ is_error: true, content: expect.stringContaining('tier') });
    expect(h.fake.requests).toHaveLength(0);
  });
});
