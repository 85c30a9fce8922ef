import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { streamHandle } from 'hono/aws-lambda';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FIRST_FLUSH_PADDING, createApp } from '../functions/http/app';
import { tarGz } from './support/archive';
import { DEV, getJson, send, startHarness, type Harness } from './support/harness';
import { installAwsLambdaGlobal, serveFunctionUrl, type FunctionUrl } from './support/lambda-runtime';

type Headers = Record<string, string>;

/** The MCP SDK's own client, over Streamable HTTP, with a caller's bearer credential. */
async function connect(url: string, headers: Headers) {
  const client = new Client({ name: 'zero-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers } }));
  return client;
}

const textOf = (result: unknown) => ((result as CallToolResult).content as { type: string; text: string }[]).map((c) => c.text).join('\n');

describe('Zero as an MCP server (POST /mcp, stateless Streamable HTTP)', () => {
  let h: Harness;
  let alice: Headers;
  let bob: Headers;
  const clients: Client[] = [];
  const as = async (headers: Headers, url = h.url) => {
    const client = await connect(url, headers);
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    h = await startHarness();
    alice = await h.userHeaders('alice', 'Alice');
    bob = await h.userHeaders('bob', 'Bob');
    // Alice's first write makes her the owner of alice/app; Bob has no role in it.
    const put = (path: string, body: string) => send(h, 'PUT', `/projects/alice/app/files/${path}`, { ...alice, 'content-type': 'application/octet-stream' }, body);
    expect((await put('src/index.ts', 'export const answer = 42;\nexport const question = "?";\n')).status).toBe(201);
    expect((await put('README.md', '# App\nAlice\'s app.\n')).status).toBe(201);
    expect((await send(h, 'PUT', '/projects/bob/tools/files/notes.txt', { ...bob, 'content-type': 'application/octet-stream' }, 'bob only\n')).status).toBe(201);
  });
  afterEach(() => h.fake.reset());
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await h.close();
  });

  it('refuses a request without a valid bearer credential with 401 and WWW-Authenticate, and answers GET and DELETE with 405', async () => {
    const initialize = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    for (const auth of [{}, { authorization: 'Bearer zk_not_a_key' }, { authorization: 'Basic YWxpY2U6eA==' }] as Headers[]) {
      const response = await fetch(`${h.url}/mcp`, { method: 'POST', headers: { ...headers, ...auth }, body: initialize });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
    }
    // The SDK's client sees the refusal as an error, not a hang.
    const client = new Client({ name: 'zero-test', version: '1.0.0' });
    await expect(client.connect(new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`)))).rejects.toThrow(/401|nauthorized/);
    // A key in the URL is refused as everywhere but the two browser streams.
    expect((await fetch(`${h.url}/mcp?access_token=x`, { method: 'POST', headers, body: initialize })).status).toBe(401);

    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(`${h.url}/mcp`, { method, headers: { ...alice, accept: 'text/event-stream' } });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('POST');
      expect((await response.json()).error.code).toBe(-32000);
    }
    expect((await fetch(`${h.url}/mcp`, { method: 'GET' })).status).toBe(401);
  });

  it('lists the project tools and one ask_ tool per agent; each caller sees only their own projects', async () => {
    const [a, b] = [await as(alice), await as(bob)];
    expect(a.getServerVersion()).toMatchObject({ name: 'zero' });
    const { tools } = await a.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['list_projects', 'read_file', 'search_files', 'find_files', 'get_analysis', 'ask_tester', 'ask_zero', 'ask_cereal']));
    const readFile = tools.find((t) => t.name === 'read_file')!;
    expect(readFile.inputSchema.required).toEqual(expect.arrayContaining(['path', 'project_id']));
    expect(readFile.annotations?.readOnlyHint).toBe(true);
    expect(tools.find((t) => t.name === 'ask_tester')!.inputSchema).toMatchObject({ required: ['message'], properties: { message: {}, session_id: {}, project_id: {} } });

    const aliceSees = textOf(await a.callTool({ name: 'list_projects', arguments: {} }));
    const bobSees = textOf(await b.callTool({ name: 'list_projects', arguments: {} }));
    expect(aliceSees).toContain('alice/app');
    expect(aliceSees).not.toContain('bob/tools');
    expect(bobSees).toContain('bob/tools');
    expect(bobSees).not.toContain('alice/app');

    // Bob cannot read, search or find anything in Alice's project: it answers as a project that does not exist.
    for (const [name, args] of [
      ['read_file', { project_id: 'alice/app', path: 'src/index.ts' }],
      ['search_files', { project_id: 'alice/app', pattern: 'answer', output_mode: 'content' }],
      ['find_files', { project_id: 'alice/app', pattern: '**/*.ts' }],
    ] as const) {
      const refused = await b.callTool({ name, arguments: args });
      expect(refused.isError, name).toBe(true);
      expect(textOf(refused)).toContain('project "alice/app" does not exist');
      expect(textOf(refused)).not.toContain('answer = 42');
    }
  });

  it("an agent made through /v1 gets ask_ tools whose names the MCP SDK accepts (its pinned version's too)", async () => {
    const created = await fetch(`${h.url}/v1/agents`, { method: 'POST', headers: { ...DEV, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Pinned', model: 'claude-sonnet-4-6' }) });
    expect(created.status).toBe(200);
    const { id } = (await created.json()) as { id: string };
    const { tools } = await (await as(alice)).listTools();
    const names = tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining([`ask_${id}`, `ask_${id}.v1`]));
    // The SDK's own rule (toolNameValidation): letters, digits, ".", "_" and "-", at most 128.
    for (const name of names) expect(name).toMatch(/^[A-Za-z0-9._-]{1,128}$/);
  });

  it('read_file, search_files and find_files answer from the project, as the caller', async () => {
    const a = await as(alice);
    const read = await a.callTool({ name: 'read_file', arguments: { project_id: 'alice/app', path: 'src/index.ts' } });
    expect(read.isError).toBeFalsy();
    expect(textOf(read)).toBe('1\texport const answer = 42;\n2\texport const question = "?";');
    const found = await a.callTool({ name: 'search_files', arguments: { project_id: 'alice/app', pattern: 'answer', output_mode: 'content' } });
    expect(textOf(found)).toContain('src/index.ts:1:export const answer = 42;');
    expect(textOf(await a.callTool({ name: 'find_files', arguments: { project_id: 'alice/app', pattern: '*.md' } }))).toContain('README.md');
    const missing = await a.callTool({ name: 'read_file', arguments: { project_id: 'alice/app', path: 'nope.ts' } });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toContain('No file "nope.ts"');
  });

  it('ask_tester runs a session as the caller, reports progress while it works and answers with the text and the session id', async () => {
    h.fake.script({ text: 'Let me check. ', toolCalls: [{ name: 'echo', input: { text: 'ping' } }] }, { text: 'The echo said ping.' });
    const a = await as(alice);
    const progress: Progress[] = [];
    const result = await a.callTool({ name: 'ask_tester', arguments: { message: 'Echo ping for me' } }, undefined, { onprogress: (p) => progress.push(p) });
    expect(result.isError).toBeFalsy();
    const output = result.structuredContent as { session_id: string; run_id: string; status: string; answer: string };
    expect(output).toMatchObject({ status: 'completed', answer: 'Let me check.\n\nThe echo said ping.', session_id: expect.any(String), run_id: expect.stringMatching(/^run_/) });
    expect(textOf(result)).toContain(`session_id: ${output.session_id}`);

    const messages = progress.map((p) => p.message);
    expect(messages[0]).toBe(`started tester in session ${output.session_id}`);
    expect(messages).toEqual(expect.arrayContaining(['calling echo', 'echo answered', 'done: completed']));
    expect(messages.indexOf('calling echo')).toBeLessThan(messages.indexOf('echo answered'));
    expect(progress.map((p) => p.progress)).toEqual(progress.map((_, i) => i + 1));

    // The session is Alice's: she reads it through the API, Bob cannot; the model saw her message.
    const session = await getJson(`${h.url}/api/v2/sessions/${output.session_id}`, alice);
    expect(session.status).toBe(200);
    expect(session.json.history.map((r: { kind: string }) => r.kind)).toEqual(['user_message', 'assistant', 'tool_result', 'assistant', 'run_end']);
    expect(session.json.history[0]).toMatchObject({ text: 'Echo ping for me', author: { id: 'alice' } });
    expect((await getJson(`${h.url}/api/v2/sessions/${output.session_id}`, bob)).status).toBe(404);

    // Passing the session id back continues the conversation; Bob may not write into Alice's session.
    h.fake.script({ text: 'Still here.' });
    const again = await a.callTool({ name: 'ask_tester', arguments: { message: 'And now?', session_id: output.session_id } });
    expect(again.structuredContent).toMatchObject({ session_id: output.session_id, status: 'completed', answer: 'Still here.' });
    expect(h.fake.requests.at(-1)!.body.messages.length).toBeGreaterThan(1);
    const intruder = await (await as(bob)).callTool({ name: 'ask_tester', arguments: { message: 'hi', session_id: output.session_id } });
    expect(intruder.isError).toBe(true);
    expect(textOf(intruder)).toContain('session_id');
  });

  it('an ask_ whose run needs an approval answers at once with the pending call and the session id, and nothing ran', async () => {
    h.fake.script({ text: 'Noted.' });
    const a = await as(alice);
    const first = (await a.callTool({ name: 'ask_tester', arguments: { message: 'Start a ledger' } })).structuredContent as { session_id: string };
    expect((await send(h, 'PUT', `/sessions/${first.session_id}/permissions`, alice, { permissions: { ledger: 'ask' } })).status).toBe(200);

    const before = h.tools.executions.get('ledger') ?? 0;
    h.fake.script({ text: 'Writing it down.', toolCalls: [{ id: 'toolu_ledger_1', name: 'ledger', input: { entry: 'paid' } }] }, { text: 'Done.' });
    const progress: Progress[] = [];
    const result = await a.callTool({ name: 'ask_tester', arguments: { message: 'Record that I paid', session_id: first.session_id } }, undefined, { onprogress: (p) => progress.push(p) });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      session_id: first.session_id,
      status: 'awaiting_approval',
      pending: [{ tool_call_id: 'toolu_ledger_1', name: 'ledger', input: { entry: 'paid' }, policy: expect.stringContaining('ledger') }],
    });
    expect(textOf(result)).toContain(`/api/v2/sessions/${first.session_id}/approvals/<call id>`);
    expect(progress.map((p) => p.message)).toContain('ledger waits for approval');
    expect(h.tools.executions.get('ledger') ?? 0).toBe(before);
    const session = await getJson(`${h.url}/api/v2/sessions/${first.session_id}`, alice);
    expect(session.json.awaiting_approval.pending.map((p: { tool_call_id: string }) => p.tool_call_id)).toEqual(['toolu_ledger_1']);
  });

  it('lists project files and reports as resources, a page at a time, and reads them under the same rules', async () => {
    const files = Array.from({ length: 130 }, (_, i) => ({ name: `docs/page-${String(i).padStart(3, '0')}.md`, body: `page ${i}\n` }));
    const archive = await tarGz(files);
    const uploaded = await fetch(`${h.url}/api/v2/projects/alice/docs/archive`, { method: 'POST', headers: { ...alice, 'content-type': 'application/gzip' }, body: new Uint8Array(archive) });
    expect(uploaded.status).toBe(201);

    const a = await as(alice);
    const uris: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await a.listResources(cursor ? { cursor } : {});
      expect(page.resources.length).toBeLessThanOrEqual(100);
      uris.push(...page.resources.map((r) => r.uri));
      cursor = page.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(2);
    expect(new Set(uris).size).toBe(uris.length);
    expect(uris).toEqual(expect.arrayContaining(['zero://projects/alice/app/files/src/index.ts', 'zero://projects/alice/docs/files/docs/page-129.md']));
    expect(uris.filter((u) => u.startsWith('zero://projects/alice/docs/files/'))).toHaveLength(130);
    expect(uris.some((u) => u.includes('bob/tools'))).toBe(false);

    const { resourceTemplates } = await a.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toContain('zero://projects/{owner}/{repo}/files/{+path}');

    const read = await a.readResource({ uri: 'zero://projects/alice/app/files/src/index.ts' });
    expect(read.contents).toEqual([{ uri: 'zero://projects/alice/app/files/src/index.ts', mimeType: expect.any(String), text: 'export const answer = 42;\nexport const question = "?";\n' }]);

    // Bob: none of Alice's resources, and a read answers as for a file that does not exist.
    const b = await as(bob);
    expect((await b.listResources()).resources.map((r) => r.uri)).toEqual(['zero://projects/bob/tools/files/notes.txt']);
    await expect(b.readResource({ uri: 'zero://projects/alice/app/files/src/index.ts' })).rejects.toMatchObject({ code: -32002 });
    await expect(b.readResource({ uri: 'zero://projects/alice/app/files/nope.ts' })).rejects.toMatchObject({ code: -32002 });
  });

  it('reports of a session are resources of that session\'s members only', async () => {
    h.fake.script({ text: 'Filed.' });
    const a = await as(alice);
    const { session_id } = (await a.callTool({ name: 'ask_tester', arguments: { message: 'Open a case', project_id: 'alice/app' } })).structuredContent as { session_id: string };
    await h.server.runtime.projectAccess.claimReport(session_id, 'alice/app', 'case.md');
    await h.server.runtime.projects.putReport('alice/app', 'case.md', '# Case\n');
    // Carol may view the project but is not in Alice's session.
    const carol = await h.userHeaders('carol');
    expect((await send(h, 'PUT', '/projects/alice/app/members/carol', alice, { role: 'viewer' })).status).toBe(201);
    const uri = 'zero://projects/alice/app/reports/case.md';
    expect((await a.readResource({ uri })).contents).toMatchObject([{ text: '# Case\n' }]);
    const c = await as(carol);
    expect((await c.listResources()).resources.map((r) => r.uri)).toEqual(expect.arrayContaining(['zero://projects/alice/app/files/src/index.ts']));
    expect((await c.listResources()).resources.map((r) => r.uri)).not.toContain(uri);
    await expect(c.readResource({ uri })).rejects.toMatchObject({ code: -32002 });
  });

  it('the seed’s analysis tools: a summary per scanner, and vulnerabilities, malcontent and secrets across scanners, filtered by severity, as the caller', async () => {
    const analysis = (scanner: string, document: unknown) => send(h, 'PUT', `/projects/alice/app/analysis/${scanner}`, alice, document);
    expect((await analysis('code-packages', { summary: { packages: 120 }, findings: { vulns: [{ id: 'CVE-2024-1', package: 'left-pad', severity: 'critical' }, { id: 'CVE-2024-2', severity: 'low' }], malcontent: [{ package: 'evil-pkg', behavior: 'exfiltrates env', severity: 'high' }] } })).status).toBe(201);
    expect((await analysis('code-security', { summary: { findings: 3 }, findings: { vulnerabilities: [{ id: 'GHSA-x', severity: 'medium' }], secrets: [{ file: 'src/config.ts', line: 3, type: 'aws-access-key', severity: 'high' }] } })).status).toBe(201);
    expect((await analysis('devops', { checks: [1, 2, 3] })).status).toBe(201);
    const [a, b] = [await as(alice), await as(bob)];
    const call = async (client: Client, name: string, args: Record<string, unknown>) => {
      const result = await client.callTool({ name, arguments: { project_id: 'alice/app', ...args } });
      return { isError: Boolean(result.isError), text: textOf(result) };
    };

    const { tools } = await a.listTools();
    for (const name of ['get_project_summary', 'get_vulnerabilities', 'get_malcontent', 'get_secrets']) {
      const tool = tools.find((t) => t.name === name)!;
      expect(tool.inputSchema.required, name).toEqual(['project_id']);
      expect(tool.annotations?.readOnlyHint, name).toBe(true);
    }

    const summary = await call(a, 'get_project_summary', {});
    expect(summary.text).toMatch(/^Analysis summary of alice\/app \(3 scanners: code-packages, code-security, devops\):/);
    expect(JSON.parse(summary.text.slice(summary.text.indexOf('\n') + 1))).toEqual({ 'code-packages': { packages: 120 }, 'code-security': { findings: 3 }, devops: { checks: '[3 items]' } });

    const vulns = await call(a, 'get_vulnerabilities', { min_severity: 'medium' });
    expect(vulns.text).toMatch(/^vulnerabilities of alice\/app from code-packages findings\.vulns, code-security findings\.vulnerabilities \(2 of 3 items at severity medium or above\):/);
    expect(JSON.parse(vulns.text.slice(vulns.text.indexOf('\n') + 1)).map((v: { id: string; scanner: string }) => `${v.scanner}:${v.id}`)).toEqual(['code-packages:CVE-2024-1', 'code-security:GHSA-x']);
    expect((await call(a, 'get_vulnerabilities', { max_items: 1 })).text).toContain('showing the first 1 of 3');
    expect((await call(a, 'get_malcontent', {})).text).toContain('"behavior": "exfiltrates env"');
    expect((await call(a, 'get_secrets', { min_severity: 'critical' })).text).toContain('0 of 1 items at severity critical or above');
    expect((await call(a, 'get_secrets', {})).text).toContain('"type": "aws-access-key"');

    // Scoped as the project tools are: Bob sees a project that does not exist, and bad arguments name the field.
    for (const name of ['get_project_summary', 'get_vulnerabilities', 'get_malcontent', 'get_secrets']) {
      const refused = await call(b, name, {});
      expect(refused, name).toEqual({ isError: true, text: expect.stringContaining('project "alice/app" does not exist') });
      expect(refused.text).not.toContain('CVE-2024-1');
    }
    expect(await call(a, 'get_vulnerabilities', { min_severity: 'severe' })).toEqual({ isError: true, text: expect.stringContaining('min_severity') });
    expect(await call(a, 'get_secrets', { project_id: '../x' })).toEqual({ isError: true, text: expect.stringContaining('project_id') });
  });

  it('bad arguments are MCP errors naming the field, never a 500', async () => {
    const a = await as(alice);
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ['read_file', { path: 'src/index.ts' }, /project_id/],
      ['read_file', { project_id: 'not a project', path: 'x' }, /project_id/],
      ['read_file', { project_id: 'alice/app', path: '../../etc/passwd' }, /path refused/],
      ['read_file', { project_id: 'alice/app', path: 'src/index.ts', limit: 'ten' }, /limit/],
      ['ask_tester', { message: '' }, /message/],
      ['ask_tester', {}, /message/],
      ['ask_tester', { message: 'hi', session_id: 'no spaces allowed here' }, /session_id/],
      ['ask_tester', { message: 'hi', project_id: '../x' }, /project_id/],
      ['ask_tester', { message: 'hi', surprise: true }, /surprise/],
      ['search_files', { project_id: 'alice/app' }, /pattern/],
      ['get_analysis', { project_id: 'alice/app', scanner: 'code-security', section: 'a..b' }, /section/],
    ];
    for (const [name, args, field] of cases) {
      const result = await a.callTool({ name, arguments: args });
      expect(result.isError, `${name} ${JSON.stringify(args)}`).toBe(true);
      expect(textOf(result), `${name} ${JSON.stringify(args)}`).toMatch(field);
    }
    expect(h.fake.requests).toHaveLength(0);
    await expect(a.readResource({ uri: 'zero://projects/alice/app/files/..%2F..%2Fsecret' })).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('uri') });
    await expect(a.readResource({ uri: 'file:///etc/passwd' })).rejects.toMatchObject({ code: -32602 });
    await expect(a.listResources({ cursor: 'not-a-cursor' })).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('cursor') });

    // Raw bodies that are not JSON-RPC: a 4xx with a JSON-RPC error.
    const post = (body: string) => fetch(`${h.url}/mcp`, { method: 'POST', headers: { ...alice, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body });
    for (const body of ['{nope', '{"jsonrpc":"1.0"}', 'null', '"text"', '{"jsonrpc":"2.0","id":1,"method":7}']) {
      const response = await post(body);
      expect(response.status, body).toBeGreaterThanOrEqual(400);
      expect(response.status, body).toBeLessThan(500);
    }
    expect((await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { padding: 'x'.repeat(2_000_000) } }))).status).toBe(413);
  });

  describe('through the Lambda adapter', () => {
    let lambda: FunctionUrl;
    beforeAll(async () => {
      installAwsLambdaGlobal();
      lambda = await serveFunctionUrl(streamHandle(createApp(h.server.runtime)));
    });
    afterAll(() => lambda?.close());

    it('streams an ask_ with its progress, the padding comment first so the function URL flushes at once', async () => {
      h.fake.script({ text: 'From Lambda.' });
      const a = await as(alice, lambda.url);
      const progress: Progress[] = [];
      const result = await a.callTool({ name: 'ask_tester', arguments: { message: 'hello' } }, undefined, { onprogress: (p) => progress.push(p) });
      expect(result.structuredContent).toMatchObject({ status: 'completed', answer: 'From Lambda.' });
      expect(progress.at(-1)?.message).toBe('done: completed');
      const call = lambda.invocations.find((i) => String(i.event.body).includes('ask_tester'))!;
      expect(call.event).toMatchObject({ rawPath: '/mcp', requestContext: { http: { method: 'POST' } } });
      expect(call.writes[0]!.bytes.toString('utf8')).toBe(FIRST_FLUSH_PADDING);
      expect(Buffer.concat(call.writes.map((w) => w.bytes)).toString('utf8')).toContain('notifications/progress');
    });
  });
});
