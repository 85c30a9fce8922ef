import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import Anthropic from '@anthropic-ai/sdk';
import { createDynamoClient } from '@zero/runtime/store/clients';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './support/harness';
import { sdkClient } from './support/sdk';
import { startWhoamiServer } from './support/mcp-servers';
import { agentSchema, apiErrorSchema, eventPageSchema, sessionEventSchema, sessionSchema, type SessionEvent, valid } from './support/managed-agents-schemas';
import { credentialSchema, vaultSchema } from './support/vault-schemas';

const ENV = 'env_zero_lambda';
const SECRET = 'mcp_Vault_Token_0123456789abcdef';

const errorOf = (e: unknown) => valid(apiErrorSchema, (e as InstanceType<typeof Anthropic.APIError>).error).error;

describe('Managed Agents mcp_servers: MCP servers authorized by a session vault credential', () => {
  let h: Harness;
  let client: Anthropic;
  let dataDir: string;
  /** Takes only the vault's token. */
  let keyed: Awaited<ReturnType<typeof startWhoamiServer>>;
  /** Bound by no credential: must never see one. */
  let open: Awaited<ReturnType<typeof startWhoamiServer>>;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'zero-mcp-vaults-'));
    [keyed, open] = await Promise.all([startWhoamiServer(), startWhoamiServer()]);
    keyed.state.token = SECRET;
    // The operator allows the two loopback fakes by host and port; any other loopback URL stays refused.
    h = await startHarness({
      outbound: { allow: [new URL(keyed.url).host, new URL(open.url).host] },
      vaultKey: { file: join(dataDir, 'vault.key') },
      permissions: { side_effects: 'allow', rules: { 'mcp__keyed__*': 'allow', 'mcp__open__*': 'allow' } },
    });
    client = sdkClient(h);
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await Promise.all([keyed?.close(), open?.close()]);
    await rm(dataDir, { recursive: true, force: true });
  });

  /** Everything the deployment stored: the bucket's objects and the table's items, as text. */
  async function everythingStored(): Promise<string> {
    const objects = await h.server.runtime.artifacts.list('');
    const texts = await Promise.all(objects.map(async ({ key }) => `${key}\n${(await h.server.runtime.artifacts.getText(key)) ?? ''}`));
    const items = await createDynamoClient(h.stack.store).send(new ScanCommand({ TableName: h.stack.store.table }));
    return [...texts, JSON.stringify(items.Items ?? [])].join('\n');
  }

  it('refuses a toolset naming no listed server and a server no toolset references, naming the field', async () => {
    const unknownServer = await client.beta.agents
      .create({ name: 'Bad', model: 'claude-sonnet-4-6', mcp_servers: [{ type: 'url', name: 'keyed', url: keyed.url }], tools: [{ type: 'mcp_toolset', mcp_server_name: 'other' }] })
      .catch((e: unknown) => e);
    expect(errorOf(unknownServer).message).toBe('tools.0.mcp_server_name: "other" is not the name of a server in mcp_servers');
    const unreferenced = await client.beta.agents.create({ name: 'Bad', model: 'claude-sonnet-4-6', mcp_servers: [{ type: 'url', name: 'keyed', url: keyed.url }] }).catch((e: unknown) => e);
    expect(errorOf(unreferenced).message).toBe('mcp_servers.0.name: "keyed" is referenced by no mcp_toolset in tools');
  });

  it("sends the session vault's credential bound to a server's URL to that server only, and keeps its value out of the events", async () => {
    const agent = valid(
      agentSchema,
      await client.beta.agents.create({
        name: 'MCP user',
        model: 'claude-sonnet-4-6',
        mcp_servers: [
          { type: 'url', name: 'keyed', url: keyed.url },
          { type: 'url', name: 'open', url: open.url },
        ],
        tools: [
          { type: 'mcp_toolset', mcp_server_name: 'keyed', default_config: { permission_policy: { type: 'always_allow' } } },
          { type: 'mcp_toolset', mcp_server_name: 'open', default_config: { permission_policy: { type: 'always_allow' } } },
        ],
      }),
    );
    expect(agent.mcp_servers).toEqual([
      { type: 'url', name: 'keyed', url: keyed.url },
      { type: 'url', name: 'open', url: open.url },
    ]);
    expect(agent.tools[0]).toEqual({ type: 'mcp_toolset', mcp_server_name: 'keyed', default_config: { enabled: true, permission_policy: { type: 'always_allow' } }, configs: [] });

    const vault = valid(vaultSchema, await client.beta.vaults.create({ display_name: 'MCP' }));
    valid(credentialSchema, await client.beta.vaults.credentials.create(vault.id, { auth: { type: 'static_bearer', token: SECRET, mcp_server_url: keyed.url } }));
    const session = valid(sessionSchema, await client.beta.sessions.create({ agent: agent.id, environment_id: ENV, vault_ids: [vault.id] }));

    h.fake.script(
      {
        toolCalls: [
          { id: 'call_keyed', name: 'mcp__keyed__whoami', input: {} },
          { id: 'call_open', name: 'mcp__open__whoami', input: {} },
        ],
      },
      { text: 'Both answered.' },
    );
    const stream = await client.beta.sessions.events.stream(session.id);
    await client.beta.sessions.events.send(session.id, { events: [{ type: 'user.message', content: [{ type: 'text', text: 'Who am I to each server?' }] }] });
    const events: SessionEvent[] = [];
    for await (const raw of stream) {
      const event = valid(sessionEventSchema, raw);
      events.push(event);
      if (event.type === 'session.status_idle') break;
    }
    expect(events.at(-1)).toMatchObject({ type: 'session.status_idle', stop_reason: { type: 'end_turn' } });

    // The bound server got the token as its bearer on every request; the other got no Authorization header at all.
    expect(keyed.state.calls).toBe(1);
    expect(open.state.calls).toBe(1);
    expect(new Set(keyed.state.authorizations)).toEqual(new Set([`Bearer ${SECRET}`]));
    expect(new Set(open.state.authorizations)).toEqual(new Set(['']));

    // Each result reached the model; the echoed token reached it as a secret's name, not its value.
    const toolResults = h.fake.requests.flatMap((r) => r.body.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])) as { type: string; tool_use_id?: string }[]).filter((b) => b.type === 'tool_result');
    const sent = (id: string) => JSON.stringify(toolResults.find((b) => b.tool_use_id === id));
    expect(sent('call_keyed')).toContain('you sent authorization: Bearer [secret');
    expect(sent('call_open')).toContain('you sent authorization: ');
    expect(sent('call_open')).not.toContain('Bearer');

    expect(JSON.stringify(events)).not.toContain(SECRET);
    expect(JSON.stringify(h.fake.requests.map((r) => r.body))).not.toContain(SECRET);
    expect(JSON.stringify(valid(eventPageSchema, await client.beta.sessions.events.list(session.id, { limit: 100 })))).not.toContain(SECRET);
    expect(await everythingStored()).not.toContain(SECRET);
  });

  it('calls a server without credentials when the session has no vault: it refuses (401), lists no tools, and a call of one is an error result', async () => {
    const agent = valid(
      agentSchema,
      await client.beta.agents.create({
        name: 'No vault',
        model: 'claude-sonnet-4-6',
        mcp_servers: [{ type: 'url', name: 'keyed', url: keyed.url }],
        tools: [{ type: 'mcp_toolset', mcp_server_name: 'keyed', default_config: { permission_policy: { type: 'always_allow' } } }],
      }),
    );
    const session = valid(sessionSchema, await client.beta.sessions.create({ agent: agent.id, environment_id: ENV }));
    const before = keyed.state.authorizations.length;
    h.fake.script({ toolCalls: [{ id: 'call_refused', name: 'mcp__keyed__whoami', input: {} }] }, { text: 'It refused.' });
    const stream = await client.beta.sessions.events.stream(session.id);
    await client.beta.sessions.events.send(session.id, { events: [{ type: 'user.message', content: [{ type: 'text', text: 'Who am I?' }] }] });
    const events: SessionEvent[] = [];
    for await (const raw of stream) {
      const event = valid(sessionEventSchema, raw);
      events.push(event);
      if (event.type === 'session.status_idle') break;
    }
    expect(keyed.state.authorizations.length).toBeGreaterThan(before);
    expect(new Set(keyed.state.authorizations.slice(before))).toEqual(new Set(['']));
    const result = events.find((e) => e.type === 'agent.tool_result' && e.tool_use_id === 'call_refused');
    expect(result).toMatchObject({ is_error: true });
    // The server's tools could not be listed: the run has none of them, and the call says which tool it lacks.
    expect(JSON.stringify(result)).toContain('Unknown tool \\"mcp__keyed__whoami\\"');
  });
});
