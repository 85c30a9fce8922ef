import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { postJson, startHarness, type Harness } from './support/harness';
import { iterate, sdkClient, streamReader } from './support/sdk';
import { agentSchema, eventPageSchema, sessionEventSchema, valid } from './support/managed-agents-schemas';

const ENV = 'env_zero_lambda';

/**
 * Session threads, written from the SDK's types (`resources/beta/sessions/threads/threads.d.ts`); their
 * events are in the session's event schema (support/managed-agents-schemas.ts).
 */
const eventSchema = sessionEventSchema;
type Event = z.infer<typeof eventSchema>;

const modelConfig = z.object({ id: z.string(), effort: z.object({ type: z.string() }).optional(), speed: z.enum(['standard', 'fast']).optional(), inference_geo: z.string().optional() });
/** `BetaManagedAgentsSessionThread` (with its agent, `BetaManagedAgentsSessionThreadAgent`). */
const threadSchema = z.object({
  id: z.string(),
  type: z.literal('session_thread'),
  session_id: z.string(),
  agent: z.object({
    id: z.string(),
    type: z.literal('agent'),
    version: z.number().int(),
    name: z.string(),
    description: z.string().nullable(),
    system: z.string().nullable(),
    model: modelConfig,
    tools: z.array(z.looseObject({ type: z.string() })),
    mcp_servers: z.array(z.object({ name: z.string(), type: z.literal('url'), url: z.string() })),
    skills: z.array(z.object({ skill_id: z.string(), type: z.string(), version: z.string() })),
    execution_identity: z.object({ type: z.string() }),
  }),
  archived_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  parent_thread_id: z.string().nullable(),
  stats: z.object({ active_seconds: z.number().optional(), duration_seconds: z.number().optional(), startup_seconds: z.number().optional() }).nullable(),
  status: z.enum(['running', 'idle', 'rescheduling', 'terminated']),
  usage: z.object({ input_tokens: z.number().optional(), output_tokens: z.number().optional(), cache_read_input_tokens: z.number().optional() }).nullable(),
  workflow_run_id: z.string().nullable(),
});
const threadPageSchema = z.object({ data: z.array(threadSchema), next_page: z.string().nullable().optional() });

/** Reads the SDK's event stream until `stop` says so, each event checked against the SDK's types; a later call reads on. */
const readUntil = streamReader(eventSchema);
const isIdle = (e: Event) => e.type === 'session.status_idle';
const errorOf = (e: unknown) => (e as InstanceType<typeof Anthropic.APIError>).error as { error: { message: string } };

describe('multiagent coordinators and session threads, through the official SDK', () => {
  let h: Harness;
  let client: Anthropic;
  /** The page the writer fetches, on loopback (allowed through the operator's outbound setting): its requests, by path. */
  let site: Server;
  let siteUrl: string;
  const fetched: string[] = [];

  beforeAll(async () => {
    site = createServer((req, res) => {
      fetched.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'text/plain' }).end('v1 is out');
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    h = await startHarness({ outbound: { allow: ['127.0.0.1'] } });
    client = sdkClient(h);
  });
  afterAll(async () => {
    await h.close();
    await new Promise((resolve) => site.close(resolve));
  });
  afterEach(() => h.fake.reset());

  /** A writer whose every fetch asks a person, and a lead that coordinates it. */
  const team = async () => {
    const writer = valid(
      agentSchema,
      await client.beta.agents.create({
        name: 'Writer',
        model: 'claude-sonnet-4-6',
        system: 'You write notes.',
        tools: [{ type: 'agent_toolset_20260401', default_config: { enabled: false }, configs: [{ name: 'web_fetch', enabled: true, permission_policy: { type: 'always_ask' } }] }],
      }),
    );
    const lead = valid(
      agentSchema,
      await client.beta.agents.create({ name: 'Lead', model: 'claude-sonnet-4-6', system: 'You coordinate.', multiagent: { type: 'coordinator', agents: [writer.id] } }),
    );
    return { writer, lead };
  };

  it('accepts a coordinator roster (1-20 distinct agents, one level deep), pinned to versions, and refuses what it cannot run by name', async () => {
    const { writer, lead } = await team();
    expect(lead.multiagent).toEqual({ type: 'coordinator', agents: [{ type: 'agent', id: writer.id, version: 1 }] });
    expect(valid(agentSchema, await client.beta.agents.retrieve(lead.id)).multiagent).toEqual(lead.multiagent);

    const refused = async (multiagent: Anthropic.Beta.Agents.AgentCreateParams['multiagent']) => {
      const error = await client.beta.agents.create({ name: 'Bad', model: 'claude-sonnet-4-6', multiagent }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Anthropic.BadRequestError);
      return errorOf(error).error.message;
    };
    expect(await refused({ type: 'coordinator', agents: [lead.id] })).toMatch(/multiagent\.agents\.0.*one level deep/);
    expect(await refused({ type: 'coordinator', agents: [{ type: 'self' }] })).toMatch(/multiagent\.agents\.0/);
    expect(await refused({ type: 'coordinator', agents: [writer.id, { type: 'agent', id: writer.id }] })).toMatch(/listed twice/);
    expect(await refused({ type: 'coordinator', agents: ['agent_missing'] })).toMatch(/no agent "agent_missing"/);
    expect(await refused({ type: 'coordinator', agents: [] })).toMatch(/multiagent/);
    expect(await refused({ type: 'multiagent_20261001' })).toMatch(/multiagent\.type/);

    // An update drops the roster with null.
    expect(valid(agentSchema, await client.beta.agents.update(lead.id, { version: 1, multiagent: null })).multiagent).toBeNull();
  });

  it("a coordinator delegates to a thread whose fetch asks a person: approved through the API, the child's tool runs; the 5 thread methods show it", async () => {
    const { writer, lead } = await team();
    const session = await client.beta.sessions.create({ agent: lead.id, environment_id: ENV });
    h.fake.script(
      { toolCalls: [{ id: 'toolu_deleg_1', name: 'delegate_agent', input: { agent_id: `${writer.id}@1`, task: 'Write the release notes.' } }] },
      { toolCalls: [{ id: 'toolu_write_1', name: 'web_fetch', input: { url: `${siteUrl}/approved` } }] },
      { text: 'Notes written to reports/notes.md.' },
      { text: 'The writer wrote the notes.' },
    );
    const stream = iterate(await client.beta.sessions.events.stream(session.id));
    await client.beta.sessions.events.send(session.id, { events: [{ type: 'user.message', content: [{ type: 'text', text: 'Get the notes written' }] }] });
    const first = await readUntil(stream, isIdle);
    // The primary thread sees the thread made and the task sent, then waits on the child's call.
    const created = first.find((e) => e.type === 'session.thread_created');
    expect(created).toMatchObject({ agent_name: `${writer.id}@1`, workflow_run_id: null });
    const threadId = (created as { session_thread_id: string }).session_thread_id;
    expect(first.find((e) => e.type === 'agent.thread_message_sent')).toMatchObject({ to_session_thread_id: threadId, content: [{ type: 'text', text: 'Write the release notes.' }] });
    expect(first.find((e) => e.type === 'session.thread_status_idle')).toMatchObject({ session_thread_id: threadId, stop_reason: { type: 'requires_action', event_ids: ['toolu_write_1'] } });
    expect(first.at(-1)).toMatchObject({ stop_reason: { type: 'requires_action', event_ids: ['toolu_write_1'] } });
    // The child's own events are its thread's, not the primary's.
    expect(first.some((e) => e.type === 'agent.tool_use' && e.id === 'toolu_write_1')).toBe(false);
    expect(h.fake.requests).toHaveLength(2);

    // threads.list: the primary thread and the child, waiting (idle).
    const listed = valid(threadPageSchema, await client.beta.sessions.threads.list(session.id));
    expect(listed.data.map((t) => [t.id, t.parent_thread_id, t.status])).toEqual([
      ['sthr_primary', null, 'idle'],
      [threadId, 'sthr_primary', 'idle'],
    ]);
    // threads.retrieve: the child runs the writer's version 1.
    const thread = valid(threadSchema, await client.beta.sessions.threads.retrieve(threadId, { session_id: session.id }));
    expect(thread).toMatchObject({ session_id: session.id, agent: { id: writer.id, version: 1, name: 'Writer', type: 'agent' }, archived_at: null });

    // threads.events.stream: the child's thread, live; a person approves the child's call through the API.
    const threadStream = iterate(await client.beta.sessions.threads.events.stream(threadId, { session_id: session.id }));
    await client.beta.sessions.events.send(session.id, { events: [{ type: 'user.tool_confirmation', tool_use_id: 'toolu_write_1', result: 'allow' }] });
    const onThread = await readUntil(threadStream, (e) => e.type === 'session.thread_status_idle');
    expect(onThread.find((e) => e.type === 'user.tool_confirmation')).toMatchObject({ tool_use_id: 'toolu_write_1', result: 'allow' });
    const ran = onThread.find((e) => e.type === 'agent.tool_result');
    expect(ran).toMatchObject({ tool_use_id: 'toolu_write_1' });
    expect((ran as { is_error?: boolean | null }).is_error).toBeFalsy();
    expect(JSON.stringify(ran)).toContain('v1 is out');
    expect(fetched).toEqual(['/approved']);
    expect(onThread.find((e) => e.type === 'agent.message')).toMatchObject({ content: [{ type: 'text', text: 'Notes written to reports/notes.md.' }] });
    expect(onThread.at(-1)).toMatchObject({ session_thread_id: threadId, stop_reason: { type: 'end_turn' } });

    const second = await readUntil(stream, isIdle);
    expect(second.find((e) => e.type === 'agent.thread_message_received')).toMatchObject({ from_session_thread_id: threadId, content: [{ type: 'text', text: 'Notes written to reports/notes.md.' }] });
    expect(second.at(-1)).toMatchObject({ stop_reason: { type: 'end_turn' } });
    expect(h.fake.requests).toHaveLength(4);

    // threads.events.list: the thread's whole story, in order.
    const page = valid(eventPageSchema, await client.beta.sessions.threads.events.list(threadId, { session_id: session.id }));
    expect(page.data.map((e) => e.type)).toEqual([
      'session.thread_status_running',
      'agent.thread_message_received',
      'agent.tool_use',
      'session.thread_status_idle',
      'user.tool_confirmation',
      'session.thread_status_running',
      'agent.tool_result',
      'agent.message',
      'session.thread_status_idle',
    ]);
    // The session's own list has the thread's making and its answer, and none of its inner events.
    const sessionEvents = valid(eventPageSchema, await client.beta.sessions.events.list(session.id));
    const types = sessionEvents.data.map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(['session.thread_created', 'agent.thread_message_sent', 'agent.thread_message_received']));
    expect(sessionEvents.data.some((e) => e.type === 'agent.tool_use' && e.id === 'toolu_write_1')).toBe(false);

    // threads.archive: an idle thread ends; the primary thread is the session's.
    const archived = valid(threadSchema, await client.beta.sessions.threads.archive(threadId, { session_id: session.id }));
    expect(archived).toMatchObject({ status: 'terminated' });
    expect(archived.archived_at).not.toBeNull();
    expect(valid(threadSchema, await client.beta.sessions.threads.retrieve(threadId, { session_id: session.id })).status).toBe('terminated');
    expect(await client.beta.sessions.threads.archive('sthr_primary', { session_id: session.id }).catch((e: unknown) => e)).toBeInstanceOf(Anthropic.BadRequestError);
    expect(await client.beta.sessions.threads.retrieve('sthr_nope', { session_id: session.id }).catch((e: unknown) => e)).toBeInstanceOf(Anthropic.NotFoundError);
  });

  it("a delegated call a person denies (through /api/v2's approvals) does not run, and the thread's answer says so", async () => {
    const { writer, lead } = await team();
    const session = await client.beta.sessions.create({ agent: lead.id, environment_id: ENV });
    h.fake.script(
      { toolCalls: [{ id: 'toolu_deleg_2', name: 'delegate_agent', input: { agent_id: `${writer.id}@1`, task: 'Overwrite the notes.' } }] },
      { toolCalls: [{ id: 'toolu_write_2', name: 'web_fetch', input: { url: `${siteUrl}/denied` } }] },
      { text: 'I was not allowed to write.' },
      { text: 'The writer was stopped.' },
    );
    const stream = iterate(await client.beta.sessions.events.stream(session.id));
    await client.beta.sessions.events.send(session.id, { events: [{ type: 'user.message', content: [{ type: 'text', text: 'Overwrite' }] }] });
    await readUntil(stream, isIdle);
    // The waiting call is the session's, at Zero's own door too.
    const { status } = await postJson(`${h.url}/api/v2/sessions/${session.id}/approvals/toolu_write_2`, { decision: 'deny', message: 'not today' });
    expect(status).toBe(200);
    const after = await readUntil(stream, isIdle);
    expect(after.at(-1)).toMatchObject({ stop_reason: { type: 'end_turn' } });
    // The writer's model was told its call was denied, and nothing was fetched.
    expect(JSON.stringify(h.fake.requests[2]!.body.messages)).toMatch(/not run.*denied it: not today/);
    expect(fetched).not.toContain('/denied');
    const threadId = (after.find((e) => e.type === 'agent.thread_message_received') as { from_session_thread_id: string }).from_session_thread_id;
    const page = valid(eventPageSchema, await client.beta.sessions.threads.events.list(threadId, { session_id: session.id }));
    expect(page.data.find((e) => e.type === 'user.tool_confirmation')).toMatchObject({ tool_use_id: 'toolu_write_2', result: 'deny' });
    expect(page.data.find((e) => e.type === 'agent.tool_result')).toMatchObject({ tool_use_id: 'toolu_write_2', is_error: true });
    const idle = valid(threadPageSchema, await client.beta.sessions.threads.list(session.id, { statuses: ['idle'] }));
    expect(idle.data.map((t) => t.id)).toContain(threadId);
  });
});
