import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { createS3Client } from '@zero/runtime/store/clients';
import { DEV, getJson, send, startHarness, type Harness } from './support/harness';
import { startEverythingServer, startWhoamiServer } from './support/mcp-servers';
import { chatStream, type ReceivedEvent } from './support/sse';

const SECRET = 'mcp-secret-value-7f3a9c2e51d84b06';

type ToolResultEvent = Extract<ReceivedEvent, { type: 'tool_result' }>;
const resultsOf = (events: ReceivedEvent[]) => events.filter((e): e is ToolResultEvent => e.type === 'tool_result');

/** The tool_result block the model was sent for a call, in the fake model's requests. */
function seenByModel(h: Harness, toolCallId: string) {
  for (const request of h.fake.requests) {
    for (const message of request.body.messages) {
      if (!Array.isArray(message.content)) continue;
      const block = (message.content as { type: string; tool_use_id?: string }[]).find((b) => b.type === 'tool_result' && b.tool_use_id === toolCallId);
      if (block) return block as unknown as { content: unknown; is_error?: boolean };
    }
  }
  return undefined;
}

describe('agents that use MCP servers (Zero as an MCP client)', () => {
  let h: Harness;
  let s3: S3Client;
  let everything: Awaited<ReturnType<typeof startEverythingServer>>;
  let whoami: Awaited<ReturnType<typeof startWhoamiServer>>;
  /** A server no operator allowed: it must never see a request. */
  let unlisted: Awaited<ReturnType<typeof startWhoamiServer>>;
  const logged: string[] = [];

  const upload = (id: string, text: string) =>
    s3.send(new PutObjectCommand({ Bucket: h.stack.store.bucket, Key: `agents/${id}.md`, Body: text, ContentType: 'text/markdown' }));
  const agentFile = (id: string, lines: string[]) => `---\nname: ${id}\ndescription: Uses MCP servers.\n${lines.join('\n')}\n---\n\nYou use the tools you are given.\n`;

  beforeAll(async () => {
    for (const level of ['log', 'info', 'warn', 'error'] as const) {
      const original = console[level].bind(console);
      vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
        logged.push(args.map(String).join(' '));
        original(...args);
      });
    }
    process.env.ZERO_MCP_SECRET_WHOAMI = SECRET;
    [everything, whoami, unlisted] = await Promise.all([startEverythingServer(), startWhoamiServer(), startWhoamiServer()]);
    // The operator allows the two servers by host and port; the third stays refused like any loopback address.
    // The deployment lets these servers' tools run (an agent file alone cannot: the deployment bounds it); any other server's ask.
    h = await startHarness({
      outbound: { allow: [`127.0.0.1:${everything.port}`, new URL(whoami.url).host] },
      permissions: { side_effects: 'allow', rules: { 'mcp__everything__*': 'allow', 'mcp__whoami__*': 'allow' } },
    });
    s3 = createS3Client(h.stack.store);
    await upload(
      'everything-user',
      agentFile('everything-user', [
        'tools: get_agent_info, mcp__everything__*',
        'mcpServers:',
        '  everything:',
        '    type: http',
        `    url: ${everything.url}`,
        'permissions:',
        '  mcp__everything__*: allow',
      ]),
    );
    await upload('asker', agentFile('asker', ['tools: mcp__asked__echo', 'mcpServers:', '  asked:', `    url: ${everything.url}`]));
    await upload('whoami-user', agentFile('whoami-user', ['tools: mcp__whoami', 'mcpServers: [whoami]', 'permissions:', '  mcp__whoami__*: allow']));
    await upload('unlisted-user', agentFile('unlisted-user', ['tools: mcp__private__*', 'mcpServers:', '  private:', `    url: ${unlisted.url}`]));
  }, 60_000);
  afterAll(async () => {
    vi.restoreAllMocks();
    delete process.env.ZERO_MCP_SECRET_WHOAMI;
    s3.destroy();
    await h.close();
    await Promise.all([everything.stop(), whoami.close(), unlisted.close()]);
  });
  afterEach(() => h.fake.reset());

  it('lists the server-everything tools to the model with their own schemas, and runs a call with arguments', async () => {
    h.fake.script({ toolCalls: [{ id: 'call_sum', name: 'mcp__everything__get-sum', input: { a: 2, b: 40 } }] }, { text: 'It is 42.' });
    const { events } = await chatStream(h.url, { agent_id: 'everything-user', message: 'Add 2 and 40.' });

    const offered = h.fake.requests[0]!.body.tools as { name: string; input_schema: { properties: Record<string, unknown> } }[];
    const sum = offered.find((t) => t.name === 'mcp__everything__get-sum');
    // The schema the server gives, as it gives it.
    expect(sum?.input_schema.properties).toMatchObject({ a: { type: 'number', description: 'First number' }, b: { type: 'number' } });
    expect(offered.map((t) => t.name)).toEqual(expect.arrayContaining(['get_agent_info', 'mcp__everything__echo', 'mcp__everything__get-tiny-image']));

    const [result] = resultsOf(events);
    expect(result).toMatchObject({ name: 'mcp__everything__get-sum', is_error: false });
    expect(result!.content).toContain('The sum of 2 and 40 is 42.');
    // Fenced as the server's data.
    expect(result!.content).toMatch(/not instructions\.\n<mcp_result server="everything" tool="get-sum">/);
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'completed' });

    const { json } = await getJson(`${h.url}/api/v2/agents`);
    const agent = json.agents.find((a: { id: string }) => a.id === 'everything-user');
    expect(agent.mcp_tools).toEqual(['mcp__everything__*']);
    expect(agent.mcp_servers).toEqual([
      { name: 'everything', type: 'http', target: everything.url, source: 'agent', secrets: [], status: expect.objectContaining({ state: 'connected', tools: expect.any(Number) }) },
    ]);
  });

  it('shows the model an image result as an image block, and an isError result as an error tool result', async () => {
    h.fake.script(
      { toolCalls: [{ id: 'call_image', name: 'mcp__everything__get-tiny-image', input: {} }, { id: 'call_bad', name: 'mcp__everything__get-sum', input: { a: 'two' } }] },
      { text: 'Seen.' },
    );
    const { events } = await chatStream(h.url, { agent_id: 'everything-user', message: 'Show me the image, then add badly.' });
    const image = seenByModel(h, 'call_image');
    expect(image?.is_error).toBeUndefined();
    const blocks = image!.content as { type: string; source?: { type: string; media_type: string; data: string } }[];
    expect(blocks.map((b) => b.type)).toEqual(['text', 'image']);
    expect(blocks[1]!.source).toMatchObject({ type: 'base64', media_type: 'image/png', data: expect.stringMatching(/^iVBORw0KGgo/) });

    const bad = resultsOf(events).find((r) => r.id === 'call_bad')!;
    expect(bad.is_error).toBe(true);
    expect(bad.content).toContain('Input validation error');
    expect(seenByModel(h, 'call_bad')).toMatchObject({ is_error: true });
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'completed' });
  });

  it('survives the server restarting between two calls (its session is gone: Zero initialises a new one), and a server that is down gives an error result', async () => {
    h.fake.script({ toolCalls: [{ name: 'mcp__everything__echo', input: { message: 'before' } }] }, { text: 'One.' });
    const first = await chatStream(h.url, { agent_id: 'everything-user', message: 'Echo before.' });
    expect(resultsOf(first.events)[0]!.content).toContain('Echo: before');

    await everything.restart();
    h.fake.script({ toolCalls: [{ name: 'mcp__everything__echo', input: { message: 'after' } }] }, { text: 'Two.' });
    const second = await chatStream(h.url, { agent_id: 'everything-user', message: 'Echo after.' });
    expect(resultsOf(second.events)[0]).toMatchObject({ is_error: false, content: expect.stringContaining('Echo: after') });

    await everything.stop();
    try {
      h.fake.script({ toolCalls: [{ name: 'mcp__everything__echo', input: { message: 'down' } }] }, { text: 'The server is down.' });
      const third = await chatStream(h.url, { agent_id: 'everything-user', message: 'Echo down.' });
      expect(resultsOf(third.events)[0]).toMatchObject({ is_error: true, content: expect.stringContaining('The MCP server "everything" could not run echo') });
      expect(third.events.at(-1)).toMatchObject({ type: 'done', status: 'completed' });
      // The agent still loads, and says what was last seen of its server.
      const { json } = await getJson(`${h.url}/api/v2/agents`);
      expect(json.agents.find((a: { id: string }) => a.id === 'everything-user').mcp_servers[0].status).toMatchObject({ state: 'error', message: expect.any(String) });
    } finally {
      await everything.restart();
    }
  }, 30_000);

  it('asks a person before an MCP tool runs when neither the agent nor the deployment says otherwise', async () => {
    h.fake.script({ toolCalls: [{ name: 'mcp__asked__echo', input: { message: 'approved' } }] }, { text: 'Echoed.' });
    const { events } = await chatStream(h.url, { agent_id: 'asker', message: 'Echo approved.' });
    const asked = events.find((e) => e.type === 'confirmation_required') as Extract<ReceivedEvent, { type: 'confirmation_required' }>;
    expect(asked).toMatchObject({ name: 'mcp__asked__echo', input: { message: 'approved' }, policy: 'the deployment default for MCP tools' });
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'awaiting_approval' });
    expect(resultsOf(events)).toEqual([]);
    const sessionId = (events.find((e) => e.type === 'start') as { session_id: string }).session_id;

    expect((await send(h, 'POST', `/sessions/${sessionId}/approvals/${asked.id}`, DEV, { decision: 'allow' })).status).toBe(200);
    for (let i = 0; i < 200; i++) {
      const { json } = await getJson(`${h.url}/api/v2/sessions/${sessionId}`);
      if (json.history.at(-1)?.kind === 'run_end') break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const { json } = await getJson(`${h.url}/api/v2/sessions/${sessionId}`);
    expect(json.history.find((r: { kind: string }) => r.kind === 'tool_result')).toMatchObject({ name: 'mcp__asked__echo', content: expect.stringContaining('Echo: approved') });
    expect(json.history.at(-1)).toMatchObject({ kind: 'run_end', status: 'completed' });
  });

  it('sends a deployment-wide server its secret, and the secret appears in no event, log, stored record or model request', async () => {
    const put = await send(h, 'PUT', '/mcp-servers/whoami', DEV, { type: 'http', url: whoami.url, headers: { Authorization: 'Bearer ${ZERO_MCP_SECRET_WHOAMI}' } });
    expect(put.status).toBe(201);
    expect(put.json.server.config.headers).toEqual({ Authorization: 'Bearer ${ZERO_MCP_SECRET_WHOAMI}' });

    h.fake.script({ toolCalls: [{ id: 'call_who', name: 'mcp__whoami__whoami', input: {} }] }, { text: 'Told.' });
    const { events } = await chatStream(h.url, { agent_id: 'whoami-user', message: 'Who am I?' });
    // The server got the secret…
    expect(whoami.state.calls).toBe(1);
    expect(whoami.state.authorizations).toContain(`Bearer ${SECRET}`);
    // …and what it sent back reached the model without it.
    const result = resultsOf(events)[0]!;
    expect(result.content).toContain('you sent authorization: Bearer [secret ZERO_MCP_SECRET_WHOAMI]');

    const sessionId = (events.find((e) => e.type === 'start') as { session_id: string }).session_id;
    const session = await getJson(`${h.url}/api/v2/sessions/${sessionId}`);
    const stored = await h.server.runtime.sessions.readEvents(sessionId);
    const objects = await s3.send(new ListObjectsV2Command({ Bucket: h.stack.store.bucket }));
    const bodies = await Promise.all(
      (objects.Contents ?? []).map(async (o) => (await (await s3.send(new GetObjectCommand({ Bucket: h.stack.store.bucket, Key: o.Key! }))).Body!.transformToString())),
    );
    const agents = await getJson(`${h.url}/api/v2/agents`);
    const servers = await getJson(`${h.url}/api/v2/mcp-servers`);
    for (const [where, text] of [
      ['events', JSON.stringify(events)],
      ['event log', JSON.stringify(stored)],
      ['session records', session.text],
      ['bucket', bodies.join('\n')],
      ['model requests', JSON.stringify(h.fake.requests)],
      ['logs', logged.join('\n')],
      ['GET /agents', agents.text],
      ['GET /mcp-servers', servers.text],
    ]) {
      expect(text, where).not.toContain(SECRET);
    }
    const view = agents.json.agents.find((a: { id: string }) => a.id === 'whoami-user').mcp_servers;
    expect(view).toEqual([expect.objectContaining({ name: 'whoami', source: 'deployment', secrets: ['ZERO_MCP_SECRET_WHOAMI'], status: expect.objectContaining({ state: 'connected' }) })]);
    expect(servers.json.servers).toEqual([expect.objectContaining({ name: 'whoami', status: expect.objectContaining({ state: 'connected', tools: 1 }) })]);
  });

  it('refuses a server on a loopback or private address the operator did not allow: no request reaches it, and the agent still loads', async () => {
    h.fake.script({ text: 'No tools.' });
    const { events } = await chatStream(h.url, { agent_id: 'unlisted-user', message: 'Use your server.' });
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'completed' });
    expect((h.fake.requests[0]!.body.tools ?? []).map((t) => t.name)).toEqual([]);
    expect(unlisted.state.requests).toBe(0);
    const { json } = await getJson(`${h.url}/api/v2/agents`);
    const agent = json.agents.find((a: { id: string }) => a.id === 'unlisted-user');
    expect(agent.mcp_servers[0].status).toMatchObject({ state: 'error', message: expect.stringContaining('127.0.0.1 is a loopback address') });

    // An administrator cannot declare one either, nor one on a private or metadata address.
    for (const url of [unlisted.url, 'http://10.0.0.7/mcp', 'http://169.254.169.254/latest']) {
      const put = await send(h, 'PUT', '/mcp-servers/private', DEV, { type: 'http', url });
      expect(put.status, url).toBe(400);
      expect(put.json.error).toMatchObject({ field: 'url', message: expect.stringContaining('ZERO_OUTBOUND_ALLOW') });
    }
    expect(unlisted.state.requests).toBe(0);
  });

  it('manages deployment-wide servers: administrators only, every field checked, secrets referenced by name only', async () => {
    const mallory = await h.userHeaders('mallory');
    expect((await send(h, 'PUT', '/mcp-servers/github', mallory, { type: 'http', url: 'https://api.example.com/mcp' })).status).toBe(403);
    expect((await send(h, 'GET', '/mcp-servers', mallory)).status).toBe(403);

    const cases: [unknown, string, RegExp][] = [
      [{ type: 'http', url: 'https://x.example.com/mcp', headers: { Authorization: 'Bearer ${GITHUB_TOKEN}' } }, 'headers.Authorization', /only secrets named ZERO_MCP_SECRET_/],
      [{ type: 'http', url: 'https://x.example.com/mcp', headers: { Authorization: 'Bearer ghp_literal' } }, 'headers.Authorization', /must reference a secret/],
      [{ type: 'http', url: 'https://x.example.com/mcp', headers: { 'X-Key': '${ZERO_MCP_SECRET_UNSET}' } }, 'headers', /ZERO_MCP_SECRET_UNSET is not set/],
      [{ type: 'stdio', command: 'npx', args: ['server'] }, 'type', /stdio/],
      [{ type: 'http', url: 'ftp://x.example.com' }, 'url', /http\(s\) URL/],
      [{ type: 'http', url: 'https://x.example.com/mcp', timeout: 5 }, 'timeout', /not a field/],
      [{ type: 'http', url: 'https://x.example.com/mcp', oauth: { token_url: 'https://auth.example.com/token', client_id: 'zero', refresh_token: 'plain' } }, 'oauth.refresh_token', /secret reference/],
    ];
    for (const [body, field, message] of cases) {
      const put = await send(h, 'PUT', '/mcp-servers/github', DEV, body);
      expect(put.status, JSON.stringify(body)).toBe(400);
      expect(put.json.error, JSON.stringify(body)).toMatchObject({ field, message: expect.stringMatching(message) });
    }
    expect((await send(h, 'PUT', '/mcp-servers/bad__name', DEV, { type: 'http', url: 'https://x.example.com/mcp' })).status).toBe(400);
    expect((await send(h, 'GET', '/mcp-servers/github', DEV)).status).toBe(404);

    expect((await send(h, 'PUT', '/mcp-servers/github', DEV, { url: 'https://api.example.com/mcp' })).status).toBe(201);
    expect((await send(h, 'GET', '/mcp-servers/github', DEV)).json.server).toMatchObject({ name: 'github', config: { type: 'http', url: 'https://api.example.com/mcp' } });
    expect((await send(h, 'DELETE', '/mcp-servers/github', DEV)).status).toBe(204);
    expect((await send(h, 'DELETE', '/mcp-servers/github', DEV)).status).toBe(404);
  });

  it('reports an agent file whose mcpServers is malformed, naming the field, and loads the others', async () => {
    await upload('broken-mcp', agentFile('broken-mcp', ['mcpServers:', '  github:', '    type: http', '    url: not a url']));
    const { json } = await getJson(`${h.url}/api/v2/agents`);
    expect(json.errors).toContainEqual({ file: 'agents/broken-mcp.md', field: 'mcpServers.github.url', message: expect.stringContaining('must be an http(s) URL') });
    expect(json.agents.map((a: { id: string }) => a.id)).toContain('everything-user');
  });
});
