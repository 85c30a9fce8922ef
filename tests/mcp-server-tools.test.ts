import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ResolvedAddress } from '@zero/agent/net/outbound';
import { LocalSandbox } from '@zero/runtime/environments/local/bubblewrap';
import { createBashTool } from '@zero/runtime/tools/bash';
import { createRunCommandTool } from '@zero/runtime/tools/run-command';
import { createWebFetchTool } from '@zero/runtime/tools/web-fetch';
import { getJson, send, startHarness, type Harness } from './support/harness';

type Headers = Record<string, string>;

/** A public-looking address the test's resolver hands out; the dialer sends it to the loopback page server. */
const PUBLIC_IP = '93.184.216.34';
const CANARY = `canary-${randomBytes(6).toString('hex')}`;

const textOf = (result: unknown) => ((result as CallToolResult).content as { type: string; text: string }[]).map((c) => c.text).join('\n');

/**
 * Issue 33 item 5: the design's web, command and delegation tools through `/mcp`, run as the
 * caller: their projects only, the deployment's permission policy (an `ask` is refused, naming
 * the policy), commands in the agents' sandbox over a scratch copy of the caller's project.
 */
describe('Zero as an MCP server: the web, command and delegation tools', () => {
  let h: Harness;
  let alice: Headers;
  let bob: Headers;
  let site: Server;
  let sitePort: number;
  let scratch: string;
  let outside: string;
  const clients: Client[] = [];
  const as = async (headers: Headers) => {
    const client = new Client({ name: 'zero-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`), { requestInit: { headers } }));
    clients.push(client);
    return client;
  };
  const call = async (client: Client, name: string, args: Record<string, unknown>) => {
    const result = await client.callTool({ name, arguments: args });
    return { isError: Boolean(result.isError), text: textOf(result), structured: result.structuredContent as Record<string, unknown> | undefined };
  };

  beforeAll(async () => {
    site = createServer((_req, res) => {
      res.setHeader('content-type', 'text/html');
      res.end('<html><body><main><h1>Release notes</h1><p>Fixed CVE-2024-1.</p></main></body></html>');
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    sitePort = (site.address() as AddressInfo).port;
    const resolver = async (hostname: string): Promise<ResolvedAddress[]> => (hostname.endsWith('.test') ? [{ address: PUBLIC_IP, family: 4 }] : []);
    scratch = await mkdtemp(join(tmpdir(), 'zero-mcp-commands-'));
    outside = await mkdtemp(join(tmpdir(), 'zero-mcp-canary-'));
    await writeFile(join(outside, 'secret.txt'), `${CANARY}\n`);
    const commands = { scratchRoot: scratch, mode: 'full' as const, timeoutMs: 20_000 };
    h = await startHarness({
      extraTools: [createWebFetchTool({ resolver, dialAddress: (a) => (a === PUBLIC_IP ? '127.0.0.1' : a) }), createRunCommandTool(commands), createBashTool(commands)],
      // The deployment's policy: side effects run, but a fetch of denied.test is denied and an rm asks a person.
      permissions: { side_effects: 'allow', rules: { 'web_fetch(denied.test)': 'deny', 'run_command(rm *)': 'ask' } },
    });
    alice = await h.userHeaders('alice', 'Alice');
    bob = await h.userHeaders('bob', 'Bob');
    const put = (path: string, body: string) => send(h, 'PUT', `/projects/alice/app/files/${path}`, { ...alice, 'content-type': 'application/octet-stream' }, body);
    expect((await put('README.md', '# App\nAlice\'s app.\n')).status).toBe(201);
    expect((await put('src/index.ts', 'export const answer = 42;\n')).status).toBe(201);
  });
  afterEach(() => h.fake.reset());
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await h?.close();
    await new Promise((resolve) => site?.close(resolve));
    await rm(scratch, { recursive: true, force: true });
    await rm(outside, { recursive: true, force: true });
  });

  it('lists web_fetch, run_command, bash, delegate_agent and get_agent_info, each naming what it needs', async () => {
    const { tools } = await (await as(alice)).listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const name of ['web_fetch', 'run_command', 'bash', 'delegate_agent', 'get_agent_info']) expect(byName.has(name), name).toBe(true);
    expect(byName.get('run_command')!.inputSchema.required).toEqual(expect.arrayContaining(['command', 'project_id']));
    expect(byName.get('bash')!.inputSchema.required).toEqual(expect.arrayContaining(['command', 'project_id']));
    expect(byName.get('bash')!.annotations?.readOnlyHint).toBe(false);
    expect(byName.get('web_fetch')!.inputSchema.required).toEqual(['url']);
    expect(byName.get('delegate_agent')!.inputSchema.required).toEqual(expect.arrayContaining(['agent_id', 'task']));
  });

  it('web_fetch reads a page as text; a host the deployment denies is refused naming the rule, and nothing is fetched', async () => {
    const a = await as(alice);
    const page = await call(a, 'web_fetch', { url: `http://docs.test:${sitePort}/notes` });
    expect(page.isError).toBe(false);
    expect(page.text).toContain('Fixed CVE-2024-1.');
    const denied = await call(a, 'web_fetch', { url: `http://denied.test:${sitePort}/notes` });
    expect(denied).toMatchObject({ isError: true, text: expect.stringContaining('ZERO_PERMISSIONS rule "web_fetch(denied.test)"') });
    expect(denied.text).not.toContain('CVE-2024-1');
    expect(await call(a, 'web_fetch', { url: 'http://127.0.0.1:1/' })).toMatchObject({ isError: true });
  });

  it('run_command and bash run in the sandbox over a scratch copy of the caller\'s project: they cannot read a file outside it, and the project is unchanged', async () => {
    expect(await new LocalSandbox().availability()).toMatchObject({ ok: true });
    const a = await as(alice);
    const listed = await call(a, 'run_command', { project_id: 'alice/app', command: 'ls -R' });
    expect(listed).toMatchObject({ isError: false, text: expect.stringContaining('exit code 0') });
    expect(listed.text).toContain('README.md');
    expect(listed.text).toContain('index.ts');

    const escape = await call(a, 'bash', { project_id: 'alice/app', command: `cat ${join(outside, 'secret.txt')}; ls ${outside}; echo overwritten > README.md; cat README.md` });
    expect(escape.text).not.toContain(CANARY);
    expect(escape.text).toContain('overwritten');
    expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe(`${CANARY}\n`);
    // The write went to this call's scratch copy only: the project, and the next call's copy, are as they were.
    expect((await call(a, 'read_file', { project_id: 'alice/app', path: 'README.md' })).text).toContain("Alice's app.");
    expect((await call(a, 'run_command', { project_id: 'alice/app', command: 'cat README.md' })).text).toContain("Alice's app.");
  });

  it('a caller without access to the project is refused, as for a project that does not exist, and nothing runs', async () => {
    const b = await as(bob);
    for (const [name, args] of [
      ['run_command', { project_id: 'alice/app', command: 'cat src/index.ts' }],
      ['bash', { project_id: 'alice/app', command: 'cat src/index.ts' }],
      ['delegate_agent', { agent_id: 'tester', task: 'Read src/index.ts', project_id: 'alice/app' }],
      ['ask_tester', { message: 'Read src/index.ts', project_id: 'alice/app' }],
    ] as const) {
      const refused = await call(b, name, args);
      expect(refused.isError, name).toBe(true);
      expect(refused.text, name).toMatch(/alice\/app/);
      expect(refused.text, name).not.toContain('answer = 42');
    }
    expect(h.fake.requests).toHaveLength(0);
    // Without project_id a command has no copy to run in: the field is named.
    expect(await call(await as(alice), 'run_command', { command: 'ls' })).toMatchObject({ isError: true, text: expect.stringContaining('project_id') });
  });

  it('a call the deployment\'s policy would ask a person about is refused over MCP, naming the policy, and nothing runs', async () => {
    const refused = await call(await as(alice), 'run_command', { project_id: 'alice/app', command: 'rm README.md' });
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain('ZERO_PERMISSIONS rule "run_command(rm *)"');
    expect(refused.text).toContain('cannot wait for an approval');
    expect(refused.text).not.toContain('exit code');
  });

  it('delegate_agent runs the named agent in a session as the caller and answers with its reply; get_agent_info describes the agents', async () => {
    h.fake.script({ text: 'The answer is 42.' });
    const a = await as(alice);
    const answered = await call(a, 'delegate_agent', { agent_id: 'tester', task: 'What is the answer?', context: 'See src/index.ts.', project_id: 'alice/app' });
    expect(answered.isError).toBe(false);
    expect(answered.structured).toMatchObject({ status: 'completed', answer: 'The answer is 42.', session_id: expect.any(String) });
    const sessionId = answered.structured!.session_id as string;
    const session = await getJson(`${h.url}/api/v2/sessions/${sessionId}`, alice);
    expect(session.json.history[0]).toMatchObject({ text: 'What is the answer?\n\nContext:\nSee src/index.ts.', author: { id: 'alice' } });
    expect((await getJson(`${h.url}/api/v2/sessions/${sessionId}`, bob)).status).toBe(404);

    const unknown = await call(a, 'delegate_agent', { agent_id: 'no-such-agent', task: 'hi' });
    expect(unknown).toMatchObject({ isError: true, text: expect.stringContaining('no-such-agent') });
    expect(await call(a, 'delegate_agent', { agent_id: 'tester', task: '  ' })).toMatchObject({ isError: true, text: expect.stringContaining('task') });

    const listing = await call(a, 'get_agent_info', {});
    expect(listing.text).toContain('- tester');
    expect((await call(a, 'get_agent_info', { agent_id: 'tester' })).text).toContain('(tester)');
  });
});
