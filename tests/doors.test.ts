import Anthropic from '@anthropic-ai/sdk';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { InProcessQueue } from '@zero/runtime/sessions/queue';
import { signSha256 } from '@zero/integrations/webhooks/signature';
import { DEV, send, startHarness, type Harness } from './support/harness';

type Headers = Record<string, string>;
const ENV = 'env_zero_lambda';
/** A window no test outlives (windows start at multiples of it since the epoch), so a test's requests fall in one. */
const LONG_WINDOW_MS = 10 * 365 * 86_400_000;

/** The three doors of one caller: `/api/v2` (its headers), `/v1` (the official SDK) and `/mcp` (the MCP SDK's client). */
function doorsOf(h: Harness, headers: Headers) {
  const key = headers.authorization!.slice('Bearer '.length);
  return {
    headers,
    v1: new Anthropic({ apiKey: key, baseURL: h.url, maxRetries: 0 }),
    async mcp() {
      const client = new Client({ name: 'doors-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`), { requestInit: { headers } }));
      return client;
    },
  };
}

const failure = (promise: Promise<unknown>) => promise.then(
  () => undefined,
  (error: unknown) => error,
);
const textOf = (result: unknown) => ((result as CallToolResult).content as { text: string }[]).map((c) => c.text).join('\n');

describe("a credential's rate limit holds at every door, in sum", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ rateLimits: { perCredential: 7, windowMs: LONG_WINDOW_MS } });
  });
  afterAll(() => h.close());

  it('once a key has spent its requests over /api/v2, /v1 and /mcp together, each door answers 429 and starts no run', async () => {
    const alice = doorsOf(h, await h.userHeaders('alice'));
    // Seven requests through the three doors: the window's allowance.
    expect((await send(h, 'GET', '/sessions', alice.headers)).status).toBe(200);
    await alice.v1.beta.agents.list();
    const mcp = await alice.mcp(); // initialize, the initialized notification, the GET of a stream (405)
    expect((await mcp.listTools()).tools.some((t) => t.name === 'ask_tester')).toBe(true);
    expect((await send(h, 'GET', '/sessions', alice.headers)).status).toBe(200);

    const api = await send(h, 'POST', '/chat', alice.headers, { agent_id: 'tester', message: 'hi' });
    expect(api.status).toBe(429);
    expect(api.json.error).toMatchObject({ code: 'rate_limited', limit: 'credential' });
    expect(await failure(alice.v1.beta.agents.list())).toBeInstanceOf(Anthropic.RateLimitError);
    expect(await failure(alice.v1.beta.sessions.create({ agent: 'tester', environment_id: ENV }))).toBeInstanceOf(Anthropic.RateLimitError);
    expect(String(await failure(mcp.callTool({ name: 'ask_tester', arguments: { message: 'hi' } })))).toContain('rate_limited');
    expect(String(await failure(alice.mcp()))).toContain('rate_limited');
    expect(h.fake.requests).toHaveLength(0);
    await mcp.close().catch(() => undefined);

    // Another key is not limited by alice's.
    expect((await send(h, 'GET', '/sessions', await h.userHeaders('carol'))).status).toBe(200);
  });
});

describe('one session, its message limit, every door', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ rateLimits: { perSession: 2, windowMs: LONG_WINDOW_MS } });
  });
  afterAll(() => h.close());

  it("messages sent through /v1's user.message count toward the session's limit; the next one is refused at /v1, /api/v2 and /mcp alike", async () => {
    const bob = doorsOf(h, await h.userHeaders('bob'));
    const session = await bob.v1.beta.sessions.create({ agent: 'tester', environment_id: ENV });
    h.fake.script({ text: 'one' }, { text: 'two' });
    for (const text of ['first', 'second']) {
      await bob.v1.beta.sessions.events.send(session.id, { events: [{ type: 'user.message', content: [{ type: 'text', text }] }] });
      await (h.server.runtime.queue as InProcessQueue).idle();
    }
    expect(h.fake.requests).toHaveLength(2);

    const v1 = await failure(bob.v1.beta.sessions.events.send(session.id, { events: [{ type: 'user.message', content: [{ type: 'text', text: 'third' }] }] }));
    expect(v1).toBeInstanceOf(Anthropic.RateLimitError);
    const api = await send(h, 'POST', '/chat', bob.headers, { session_id: session.id, message: 'third' });
    expect(api.status).toBe(429);
    expect(api.json.error).toMatchObject({ code: 'rate_limited', limit: 'session' });
    const mcp = await bob.mcp();
    const asked = await mcp.callTool({ name: 'ask_tester', arguments: { message: 'third', session_id: session.id } });
    expect(asked.isError).toBe(true);
    expect(textOf(asked)).toMatch(/rate|429|per/i);
    await mcp.close().catch(() => undefined);

    await (h.server.runtime.queue as InProcessQueue).idle();
    expect(h.fake.requests).toHaveLength(2);
    expect((await send(h, 'GET', `/sessions/${session.id}`, bob.headers)).text).not.toContain('third');
  });
});

describe('a suspended user is refused at every door', () => {
  const SECRET = 'a-webhook-secret-for-doors';
  let h: Harness;
  beforeAll(async () => {
    process.env.ZERO_WEBHOOK_SECRET_DOORS = SECRET;
    h = await startHarness();
  });
  afterEach(() => h.fake.reset());
  afterAll(() => h.close());

  it('/api/v2, /v1, /mcp (ask_<agent> too) and the webhooks they own answer 403 user_suspended, and no run starts, until resumed', async () => {
    const erin = doorsOf(h, await h.userHeaders('erin'));
    const session = await erin.v1.beta.sessions.create({ agent: 'tester', environment_id: ENV });
    const hook = { source: 'github', secret_ref: 'ZERO_WEBHOOK_SECRET_DOORS', events: ['push'], agent_id: 'tester', prompt: 'A push.', owner: { user_id: 'erin' } };
    expect((await send(h, 'PUT', '/hooks/erins-pushes', DEV, hook)).status).toBe(201);
    let deliveries = 0;
    const deliver = async () => {
      const body = JSON.stringify({ ref: 'refs/heads/main' });
      const response = await fetch(`${h.url}/api/v2/webhooks/erins-pushes`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-github-event': 'push', 'x-github-delivery': `doors-${++deliveries}`, 'x-hub-signature-256': signSha256(SECRET, body) },
        body,
      });
      return { status: response.status, json: (await response.json()) as { error?: { code: string }; session_id?: string } };
    };

    expect((await send(h, 'POST', '/admin/users/erin/suspend', DEV, { reason: 'abuse' })).status).toBe(200);

    const api = await send(h, 'GET', '/sessions', erin.headers);
    expect(api.status).toBe(403);
    expect(api.json.error).toMatchObject({ code: 'user_suspended' });
    expect((await send(h, 'POST', '/ui/chat', erin.headers, { id: 'erins-chat', messages: [] })).status).toBe(403);
    for (const call of [
      () => erin.v1.beta.agents.list(),
      () => erin.v1.beta.agents.create({ name: 'x', model: 'claude-sonnet-4-6' }),
      () => erin.v1.beta.sessions.list(),
      () => erin.v1.beta.sessions.create({ agent: 'tester', environment_id: ENV }),
      () => erin.v1.beta.sessions.events.send(session.id, { events: [{ type: 'user.message', content: [{ type: 'text', text: 'hi' }] }] }),
    ]) {
      expect(await failure(call())).toBeInstanceOf(Anthropic.PermissionDeniedError);
    }
    expect(String(await failure(erin.mcp()))).toContain('user_suspended');
    const delivered = await deliver();
    expect(delivered.status).toBe(403);
    expect(delivered.json.error).toMatchObject({ code: 'user_suspended' });
    await (h.server.runtime.queue as InProcessQueue).idle();
    expect(h.fake.requests).toHaveLength(0);

    expect((await send(h, 'POST', '/admin/users/erin/resume', DEV)).status).toBe(200);
    h.fake.script({ text: 'back' }, { text: 'pushed' }, { text: 'asked' });
    await erin.v1.beta.sessions.events.send(session.id, { events: [{ type: 'user.message', content: [{ type: 'text', text: 'hi' }] }] });
    await (h.server.runtime.queue as InProcessQueue).idle();
    expect((await deliver()).status).toBe(202);
    await (h.server.runtime.queue as InProcessQueue).idle();
    const mcp = await erin.mcp();
    expect(textOf(await mcp.callTool({ name: 'ask_tester', arguments: { message: 'hi' } }))).toContain('asked');
    await mcp.close().catch(() => undefined);
  });
});

describe("the deployment's permissions bound a /v1 agent's toolset policy at every door", () => {
  let h: Harness;
  beforeAll(async () => {
    // Tools with side effects ask; edit_file never runs.
    h = await startHarness({ permissions: { side_effects: 'ask', rules: { edit_file: 'deny' } } });
  });
  afterEach(() => h.fake.reset());
  afterAll(() => h.close());

  it("a non-administrator's always_allow neither skips the deployment's ask (write_file) nor lifts its deny (edit_file), through /v1, /api/v2 and /mcp", async () => {
    const mallory = doorsOf(h, await h.userHeaders('mallory'));
    const allowAll = { type: 'always_allow' as const };
    const agent = await mallory.v1.beta.agents.create({
      name: 'Unbounded',
      model: 'claude-sonnet-4-6',
      tools: [{ type: 'agent_toolset_20260401', default_config: { enabled: false }, configs: [{ name: 'write', enabled: true, permission_policy: allowAll }, { name: 'edit', enabled: true, permission_policy: allowAll }] }],
    });
    const hostileStep = (door: string) => ({
      toolCalls: [
        { id: `toolu_edit_${door}`, name: 'edit_file', input: { path: 'artifacts/notes.md', old_string: 'a', new_string: 'b' } },
        { id: `toolu_write_${door}`, name: 'write_file', input: { path: 'artifacts/notes.md', content: `written through ${door}` } },
      ],
    });
    const denied = 'Tool "edit_file" was not run: the permission policy denies it (ZERO_PERMISSIONS rule "edit_file").';

    // /v1: the official SDK's session.
    h.fake.script(hostileStep('v1'));
    const session = await mallory.v1.beta.sessions.create({ agent: agent.id, environment_id: ENV });
    const stream = await mallory.v1.beta.sessions.events.stream(session.id);
    await mallory.v1.beta.sessions.events.send(session.id, { events: [{ type: 'user.message', content: [{ type: 'text', text: 'go' }] }] });
    const seen: { type: string; [key: string]: unknown }[] = [];
    for await (const event of stream as AsyncIterable<{ type: string; [key: string]: unknown }>) {
      seen.push(event);
      if (event.type === 'session.status_idle') break;
    }
    expect(seen.find((e) => e.type === 'agent.tool_result' && e.tool_use_id === 'toolu_edit_v1')).toMatchObject({ is_error: true, content: [{ type: 'text', text: denied }] });
    expect(seen.at(-1)).toMatchObject({ stop_reason: { type: 'requires_action', event_ids: ['toolu_write_v1'] } });

    // /api/v2: a chat with the same agent.
    h.fake.script(hostileStep('api'));
    const response = await fetch(`${h.url}/api/v2/chat`, { method: 'POST', headers: { 'content-type': 'application/json', ...mallory.headers }, body: JSON.stringify({ agent_id: agent.id, message: 'go' }) });
    const chat = (await response.json()) as { status: string; session_id: string };
    expect(chat).toMatchObject({ status: 'awaiting_approval' });
    const log = await h.server.runtime.sessions.readLog(chat.session_id);
    expect(JSON.stringify(log)).toContain(JSON.stringify(denied).slice(1, -1));

    // /mcp: ask_<agent>.
    h.fake.script(hostileStep('mcp'));
    const mcp = await mallory.mcp();
    const asked = await mcp.callTool({ name: `ask_${agent.id}`, arguments: { message: 'go' } });
    expect(asked.structuredContent).toMatchObject({ status: 'awaiting_approval', pending: [{ tool_call_id: 'toolu_write_mcp', name: 'write_file' }] });
    await mcp.close().catch(() => undefined);

    // Nothing was written through any door.
    for (const sessionId of [session.id, chat.session_id, (asked.structuredContent as { session_id: string }).session_id]) {
      expect(await h.server.runtime.artifacts.getText(`sessions/${sessionId}/artifacts/notes.md`)).toBeUndefined();
    }
  });
});
