import { PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createS3Client } from '@zero/runtime/store/clients';
import { startHarness, type Harness } from './support/harness';
import { startLeakyServer } from './support/mcp-servers';
import { secretReflections } from './support/secret-reflections';
import { chatStream, type ReceivedEvent } from './support/sse';

const SECRET = 'mcp-leaky/Secret+Value&0123456789abcdef';

/**
 * An MCP server's own secret (`${ZERO_MCP_SECRET_*}`) never reaches the model, even from a server
 * that hands it back: in its tools' descriptions and schemas, its results and its errors.
 */
describe('an MCP server that reflects its secret', () => {
  let h: Harness;
  let leaky: Awaited<ReturnType<typeof startLeakyServer>>;

  beforeAll(async () => {
    process.env.ZERO_MCP_SECRET_LEAKY = SECRET;
    leaky = await startLeakyServer(secretReflections);
    // The deployment allows the server's tools: an agent file may only tighten what the deployment decides.
    h = await startHarness({ outbound: { allow: [new URL(leaky.url).host] }, permissions: { side_effects: 'allow', rules: { 'mcp__leaky__*': 'allow' } } });
    const s3 = createS3Client(h.stack.store);
    const agent = [
      '---',
      'name: leaky-user',
      'description: Uses a hostile MCP server.',
      'tools: mcp__leaky__*',
      'mcpServers:',
      '  leaky:',
      `    url: ${leaky.url}`,
      '    headers:',
      '      Authorization: Bearer ${ZERO_MCP_SECRET_LEAKY}',
      'permissions:',
      '  mcp__leaky__*: allow',
      '---',
      '',
      'You use the tools you are given.',
    ].join('\n');
    await s3.send(new PutObjectCommand({ Bucket: h.stack.store.bucket, Key: 'agents/leaky-user.md', Body: agent, ContentType: 'text/markdown' }));
    s3.destroy();
  }, 60_000);
  afterAll(async () => {
    delete process.env.ZERO_MCP_SECRET_LEAKY;
    await h.close();
    await leaky.close();
  });

  it('scrubs it from the tools offered, every result and every error, in every encoding a test can list', async () => {
    h.fake.script(
      {
        toolCalls: [
          { id: 'call_leak', name: 'mcp__leaky__leak', input: { q: 'x' } },
          { id: 'call_fail', name: 'mcp__leaky__fail', input: {} },
          { id: 'call_deny', name: 'mcp__leaky__deny', input: {} },
        ],
      },
      { text: 'Done.' },
    );
    const { events } = await chatStream(h.url, { agent_id: 'leaky-user', message: 'Use every tool.' });
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'completed' });
    // The server was sent its secret, and answered every call.
    expect(leaky.state.authorizations).toContain(SECRET);
    expect(leaky.state.calls).toEqual(expect.arrayContaining(['leak', 'fail', 'deny']));

    // The tools the model was offered name the secret, never show it.
    const offered = h.fake.requests[0]!.body.tools as { name: string; description: string; input_schema: { properties: { q: { description: string } } } }[];
    const leak = offered.find((t) => t.name === 'mcp__leaky__leak')!;
    expect(leak.description).toBe('Reflects credentials. Configured with [secret ZERO_MCP_SECRET_LEAKY] (hex [secret ZERO_MCP_SECRET_LEAKY]). (tool "leak" of the MCP server "leaky")');
    expect(leak.input_schema.properties.q.description).toBe('a query; the key is [secret ZERO_MCP_SECRET_LEAKY]');

    // The step's calls run concurrently and their results come as each finishes: read them in the order they were called.
    const called = ['call_leak', 'call_fail', 'call_deny'];
    const results = events.filter((e): e is Extract<ReceivedEvent, { type: 'tool_result' }> => e.type === 'tool_result').sort((a, b) => called.indexOf(a.id) - called.indexOf(b.id));
    expect(results.map((r) => [r.id, r.is_error])).toEqual([['call_leak', false], ['call_fail', true], ['call_deny', true]]);
    // Each reflection scrubbed (a base64 text holding more than the secret keeps a few characters at each end).
    const lines = results[0]!.content.split('\n');
    for (const { encoding } of secretReflections(SECRET)) {
      const line = lines.find((l) => l.startsWith(`${encoding}: `))!;
      expect({ encoding, scrubbed: line.slice(encoding.length + 2) }).toEqual({ encoding, scrubbed: expect.stringMatching(/^\S{0,8}\[secret ZERO_MCP_SECRET_LEAKY\]\S{0,4}$/) });
    }
    expect(results[1]!.content).toContain('bad credentials [secret ZERO_MCP_SECRET_LEAKY] / [secret ZERO_MCP_SECRET_LEAKY]');
    expect(results[2]!.content).toContain('unauthorized: [secret ZERO_MCP_SECRET_LEAKY]');

    const sessionId = (events.find((e) => e.type === 'start') as { session_id: string }).session_id;
    const seen = {
      'model requests': JSON.stringify(h.fake.requests.map((r) => r.body)),
      events: JSON.stringify(events),
      'event log': JSON.stringify(await h.server.runtime.sessions.readEvents(sessionId)),
    };
    for (const [where, text] of Object.entries(seen)) {
      for (const { encoding, core } of secretReflections(SECRET)) {
        expect({ where, encoding, leaked: text.includes(core) }).toEqual({ where, encoding, leaked: false });
      }
    }
  });
});
