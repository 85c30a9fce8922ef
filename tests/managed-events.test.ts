import Anthropic from '@anthropic-ai/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type * as z from 'zod';
import { DEV, send, startHarness, type Harness } from './support/harness';
import { iterate, sdkClient, startHarnessWithSdk, streamReader } from './support/sdk';
import { agentPageSchema, agentSchema, apiErrorSchema, sentEventsSchema, sessionSchema, valid } from './support/managed-agents-schemas';
import { listedPageSchema, streamEventSchema, type StreamEvent } from './support/managed-events-schemas';

const ENV = 'env_zero_lambda';

/** Reads the SDK's event stream until `stop` says so, each event checked against the SDK's types; a later call reads on. */
const readUntil = streamReader(streamEventSchema);
const isIdle = (e: StreamEvent) => e.type === 'session.status_idle';
const say = (text: string) => ({ events: [{ type: 'user.message' as const, content: [{ type: 'text' as const, text }] }] });

/** Every event of the session's list, each checked against the SDK's types. */
async function listed(client: Anthropic, sessionId: string) {
  const page = await client.beta.sessions.events.list(sessionId, { limit: 1000 });
  return valid(listedPageSchema, { data: page.data, next_page: page.next_page }).data;
}

describe("a session's events and status, in the SDK's shapes", () => {
  let h: Harness;
  let client: Anthropic;

  beforeAll(async () => ({ h, client } = await startHarnessWithSdk()));
  afterAll(() => h.close());
  afterEach(() => h.fake.reset());

  const newSession = async (tools?: Anthropic.Beta.Agents.AgentCreateParams['tools']) => {
    const agent = await client.beta.agents.create({ name: 'Events', model: 'claude-sonnet-4-6', ...(tools ? { tools } : {}) });
    return client.beta.sessions.create({ agent: agent.id, environment_id: ENV });
  };

  it("answers every agent and session with web_fetch's url_sources, as the SDK's types require", async () => {
    const agent = valid(agentSchema, await client.beta.agents.create({ name: 'Fetcher', model: 'claude-sonnet-4-6', tools: [{ type: 'agent_toolset_20260401' }] }));
    const toolset = agent.tools[0]!;
    expect(toolset.type === 'agent_toolset_20260401' && toolset.configs.find((c) => c.name === 'web_fetch')).toMatchObject({ url_sources: null });
    valid(agentSchema, await client.beta.agents.retrieve(agent.id));
    // The Markdown agents too.
    valid(agentPageSchema, await client.beta.agents.list({ limit: 100 }).then((p) => ({ data: p.data, next_page: p.next_page })));
    const session = valid(sessionSchema, await client.beta.sessions.create({ agent: agent.id, environment_id: ENV }));
    valid(sessionSchema, await client.beta.sessions.retrieve(session.id));
  });

  it('previews agent.message in pieces on a stream that asks (event_deltas), and reports the usage after each turn as session.usage', async () => {
    const session = await newSession();
    h.fake.script({ text: ['Hel', 'lo ', 'world'], usage: { input_tokens: 100, output_tokens: 3 } }, { text: 'Again', usage: { input_tokens: 150, output_tokens: 1 } });
    const previewing = iterate(await client.beta.sessions.events.stream(session.id, { event_deltas: ['agent.message'] }));
    const plain = iterate(await client.beta.sessions.events.stream(session.id));
    await client.beta.sessions.events.send(session.id, say('Hi'));
    const events = await readUntil(previewing, isIdle);

    const start = events.find((e) => e.type === 'event_start');
    const message = events.find((e) => e.type === 'agent.message');
    if (start?.type !== 'event_start' || message?.type !== 'agent.message') throw new Error(`no preview or no message: ${events.map((e) => e.type).join(', ')}`);
    // The preview names the id the message ends with, its pieces add up to the message, and all come before it.
    expect(start.event).toEqual({ id: message.id, type: 'agent.message' });
    const pieces = events.flatMap((e) => (e.type === 'event_delta' ? [e] : []));
    expect(pieces.every((p) => p.event_id === message.id)).toBe(true);
    expect(pieces.map((p) => p.delta.content.text).join('')).toBe('Hello world');
    expect(message.content).toEqual([{ type: 'text', text: 'Hello world' }]);
    expect(events.indexOf(start)).toBeLessThan(events.indexOf(pieces[0]!));
    expect(events.indexOf(pieces.at(-1)!)).toBeLessThan(events.indexOf(message));
    expect(events.find((e) => e.type === 'session.usage')).toMatchObject({ usage: { input_tokens: 100, output_tokens: 3, list_cost: { currency: 'USD' } } });

    // A stream that did not ask has no previews; the list never has them.
    const plainEvents = await readUntil(plain, isIdle);
    expect(plainEvents.some((e) => e.type === 'event_start' || e.type === 'event_delta')).toBe(false);
    expect(plainEvents.map((e) => e.type)).toEqual(events.filter((e) => e.type !== 'event_start' && e.type !== 'event_delta').map((e) => e.type));

    // session.usage is the session's, summed over its turns, and matches the session's usage.
    await client.beta.sessions.events.send(session.id, say('Again'));
    const second = await readUntil(previewing, isIdle);
    expect(second.find((e) => e.type === 'session.usage')).toMatchObject({ usage: { input_tokens: 250, output_tokens: 4 } });
    const usages = (await listed(client, session.id)).filter((e) => e.type === 'session.usage');
    expect(usages).toHaveLength(2);
    const retrieved = valid(sessionSchema, await client.beta.sessions.retrieve(session.id));
    expect(usages.at(-1)).toMatchObject({ usage: retrieved.usage });
  });

  it('shows user.interrupt in the stream and the list, with the id the send answered, and the session idles with end_turn', async () => {
    const session = await newSession();
    h.fake.script({ text: Array.from({ length: 200 }, (_, i) => `word${i} `), deltaDelayMs: 20 });
    const stream = iterate(await client.beta.sessions.events.stream(session.id));
    await client.beta.sessions.events.send(session.id, say('Talk a lot'));
    await readUntil(stream, (e) => e.type === 'session.status_running');
    const sent = valid(sentEventsSchema, await client.beta.sessions.events.send(session.id, { events: [{ type: 'user.interrupt' }] }));
    const interruptId = sent.data![0]!.id;
    const rest = await readUntil(stream, isIdle);
    expect(rest.filter((e) => e.type === 'user.interrupt').map((e) => e.id)).toEqual([interruptId]);
    expect(rest.at(-1)).toMatchObject({ type: 'session.status_idle', stop_reason: { type: 'end_turn' } });
    const all = await listed(client, session.id);
    expect(all.filter((e) => e.type === 'user.interrupt').map((e) => e.id)).toEqual([interruptId]);
    // Where it happened: after the message it cut short, before the session idled.
    const types = all.map((e) => e.type);
    expect(types.indexOf('user.interrupt')).toBeGreaterThan(types.indexOf('user.message'));
    expect(types.indexOf('user.interrupt')).toBeLessThan(types.lastIndexOf('session.status_idle'));
  });

  it('interrupts a call that waits for a person: the interrupt shows, and the waiting run ends', async () => {
    const session = await newSession([{ type: 'agent_toolset_20260401', default_config: { enabled: false }, configs: [{ name: 'write', enabled: true, permission_policy: { type: 'always_ask' } }] }]);
    h.fake.script({ toolCalls: [{ id: 'toolu_wait_1', name: 'write_file', input: { path: 'a.md', content: 'x' } }] });
    const stream = iterate(await client.beta.sessions.events.stream(session.id));
    await client.beta.sessions.events.send(session.id, say('Write it'));
    expect((await readUntil(stream, isIdle)).at(-1)).toMatchObject({ stop_reason: { type: 'requires_action', event_ids: ['toolu_wait_1'] } });
    const sent = valid(sentEventsSchema, await client.beta.sessions.events.send(session.id, { events: [{ type: 'user.interrupt' }] }));
    const rest = await readUntil(stream, isIdle);
    expect(rest.map((e) => e.type)).toContain('user.interrupt');
    expect(rest.find((e) => e.type === 'user.interrupt')?.id).toBe(sent.data![0]!.id);
    expect(rest.at(-1)).toMatchObject({ stop_reason: { type: 'end_turn' } });
  });

  it('types a failed model request as session.error: retrying while Zero redoes the step, exhausted when the turn is dead (stop reason retries_exhausted)', async () => {
    const session = await newSession();
    // A stream that breaks mid-answer is redone: the broken attempt's words are not part of the message.
    h.fake.script({ text: ['Broken ', 'answer'], failAfterChunks: 1 }, { text: 'Whole answer' });
    const stream = iterate(await client.beta.sessions.events.stream(session.id));
    await client.beta.sessions.events.send(session.id, say('Hi'));
    const redone = await readUntil(stream, isIdle);
    expect(redone.find((e) => e.type === 'session.error')).toMatchObject({ error: { retry_status: { type: 'retrying' } } });
    expect(redone.filter((e) => e.type === 'agent.message').map((e) => (e.type === 'agent.message' ? e.content[0]!.text : ''))).toEqual(['Whole answer']);
    expect(redone.at(-1)).toMatchObject({ stop_reason: { type: 'end_turn' } });

    // Every attempt fails (the SDK's own retries too): the turn ends, the session idles and takes the next message.
    h.fake.script({ status: 500 }, { status: 500 }, { status: 500 });
    await client.beta.sessions.events.send(session.id, say('Again'));
    const failed = await readUntil(stream, isIdle);
    const error = failed.find((e) => e.type === 'session.error');
    expect(error).toMatchObject({ error: { type: 'model_request_failed_error', retry_status: { type: 'exhausted' } } });
    expect(failed.at(-1)).toMatchObject({ stop_reason: { type: 'retries_exhausted' } });
    expect(valid(sessionSchema, await client.beta.sessions.retrieve(session.id)).status).toBe('idle');
  });

  it('shows a change of title or metadata as session.updated, live and in the list after the events before it; a change of nothing shows nothing', async () => {
    const session = await newSession();
    h.fake.script({ text: 'First' });
    const stream = iterate(await client.beta.sessions.events.stream(session.id));
    await client.beta.sessions.events.send(session.id, say('Hi'));
    await readUntil(stream, isIdle);

    valid(sessionSchema, await client.beta.sessions.update(session.id, { title: 'Renamed', metadata: { ticket: '7' } }));
    const [updated] = await readUntil(stream, (e) => e.type === 'session.updated');
    expect(updated).toMatchObject({ type: 'session.updated', title: 'Renamed', metadata: { ticket: '7' } });
    // Only what changed: the title stays, so only the metadata shows; cleared metadata is absent, as the type says.
    await client.beta.sessions.update(session.id, { title: 'Renamed', metadata: { ticket: '8' } });
    const [second] = await readUntil(stream, (e) => e.type === 'session.updated');
    expect(second).toEqual({ type: 'session.updated', id: expect.any(String), processed_at: expect.any(String), metadata: { ticket: '8' } });
    await client.beta.sessions.update(session.id, { title: 'Renamed' });

    const all = await listed(client, session.id);
    const updates = all.filter((e) => e.type === 'session.updated');
    expect(updates.map((e) => e.id)).toEqual([updated, second].map((e) => (e as { id: string }).id));
    expect(all.map((e) => e.type).indexOf('session.updated')).toBeGreaterThan(all.map((e) => e.type).lastIndexOf('session.status_idle'));
    const only = await client.beta.sessions.events.list(session.id, { types: ['session.updated'] });
    expect(only.data.map((e) => e.id)).toEqual(updates.map((e) => e.id));
  });

  it("answers the SDK's tunnel methods, which do not apply to a self-hosted Zero, with a 404 that says why", async () => {
    const calls: [string, () => Promise<unknown>][] = [
      ['tunnels.create', () => client.beta.tunnels.create({})],
      ['tunnels.list', () => client.beta.tunnels.list()],
      ['tunnels.retrieve', () => client.beta.tunnels.retrieve('tnl_1')],
      ['tunnels.archive', () => client.beta.tunnels.archive('tnl_1')],
      ['tunnels.certificates.list', () => client.beta.tunnels.certificates.list('tnl_1')],
    ];
    for (const [name, call] of calls) {
      const error = await call().catch((e: unknown) => e);
      expect(error, name).toBeInstanceOf(Anthropic.NotFoundError);
      const body = valid(apiErrorSchema, (error as InstanceType<typeof Anthropic.APIError>).error);
      expect(body.error, name).toMatchObject({ type: 'not_found_error', message: expect.stringContaining('MCP tunnels do not apply to Zero') });
    }
  });

  it('ends an open stream with session.status_terminated and session.deleted when the session is deleted', async () => {
    const session = await newSession();
    const stream = iterate(await client.beta.sessions.events.stream(session.id));
    await client.beta.sessions.delete(session.id);
    const events = await readUntil(stream, (e) => e.type === 'session.deleted');
    expect(events.map((e) => e.type)).toEqual(['session.status_terminated', 'session.deleted']);
    expect((await stream.next()).done).toBe(true);
  });
});

describe('a session whose budget is spent', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ limits: { maxOutputTokensPerCall: 1000 }, budgets: { sessionMaxMicros: 1_000_000 } });
  });
  afterAll(() => h.close());

  it('idles with stop reason budget_reached, and says so again for a message before the budget is raised', async () => {
    const client = sdkClient(h);
    const agent = await client.beta.agents.create({ name: 'Spender', model: 'claude-sonnet-4-6' });
    const session = await client.beta.sessions.create({ agent: agent.id, environment_id: ENV });
    expect((await send(h, 'PUT', `/sessions/${session.id}/budget`, DEV, { max_cost_usd: 0.01 })).status).toBe(200);
    // $0.045 at Sonnet's prices: past the budget after the first call.
    h.fake.script({ text: 'expensive', usage: { input_tokens: 10_000, output_tokens: 1000 } });
    const stream = iterate(await client.beta.sessions.events.stream(session.id));
    await client.beta.sessions.events.send(session.id, say('Spend'));
    expect((await readUntil(stream, isIdle)).at(-1)).toMatchObject({ stop_reason: { type: 'end_turn' } });
    await client.beta.sessions.events.send(session.id, say('Spend more'));
    expect((await readUntil(stream, isIdle)).at(-1)).toMatchObject({ stop_reason: { type: 'budget_reached' } });
    expect(h.fake.requests).toHaveLength(1);
  });
});
