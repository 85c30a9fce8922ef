import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ToolRegistry } from '@zero/agent/tools/registry';
import { builtinTools } from '../functions/create-runtime';
import { requireAgent } from '@zero/agent/definitions/catalog';
import type { FakeRequest } from './support/fake-anthropic';
import { startHarness, type Harness } from './support/harness';
import { chatStream } from './support/sse';
import { modelCalls } from './support/tool-calls';

const PROJECT = 'acme/users-api';
const SECRET = 'zap-test-secret-value-0123456789';

/** The API under test, on loopback: what GET /users/1 answers is changed by the tests. */
let user: { status: number; body: Record<string, unknown> } = { status: 200, body: { id: 1, name: 'Ada', served_at: '2026-01-01T00:00:00Z' } };

const PYTHON_ERROR = {
  detail: 'Internal Server Error',
  type: 'KeyError',
  traceback: 'Traceback (most recent call last):\n  File "/srv/app/app/api/users.py", line 42, in get_user\n    return USERS[user_id]\n  File "/usr/lib/python3.11/site-packages/starlette/routing.py", line 74, in app\nKeyError: 7',
};
const NODE_ERROR = {
  message: 'Cannot read properties of undefined (reading "email")',
  name: 'TypeError',
  stack: 'TypeError: Cannot read properties of undefined (reading "email")\n    at getUser (/srv/app/src/routes/users.js:12:20)\n    at Layer.handle [as handle_request] (/srv/app/node_modules/express/lib/router/layer.js:95:5)',
};

function startApi(): Promise<Server> {
  const server = createServer((req, res) => {
    const send = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));
    if (req.url === '/users/1') return send(user.status, user.body);
    if (req.url === '/py/users/7') return send(500, PYTHON_ERROR);
    if (req.url === '/node/users/7') return send(500, NODE_ERROR);
    // Echoes the credential it was sent: what a reflecting server does.
    if (req.url === '/whoami') return send(200, { authorization: req.headers.authorization });
    return send(404, { detail: 'Not Found' });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** Numbered source lines, the given line holding `marker`. */
function source(lines: number, at: number, marker: string): string {
  return Array.from({ length: lines }, (_, i) => (i + 1 === at ? marker : `# line ${i + 1}`)).join('\n');
}

describe('ZAP, the API tester', () => {
  let h: Harness;
  let api: Server;
  let base: string;
  const zap = { agent_id: 'zap', project_id: PROJECT };
  const text = (result: { content: unknown } | undefined) => String(result?.content);
  const projectFile = async (path: string) => {
    const file = await h.server.runtime.projects.read(PROJECT, 'files', path);
    return file && new TextDecoder().decode(file.body);
  };

  beforeAll(async () => {
    api = await startApi();
    base = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
    process.env.ZERO_HTTP_SECRET_ZAP_TEST = SECRET;
    // A plain-http API on a loopback port: the secret is bound to that scheme and port explicitly.
    process.env.ZERO_HTTP_SECRET_ZAP_TEST_HOSTS = base;
    h = await startHarness({ outbound: { allow: [new URL(base).host] } });
    const file = (path: string, body: string) => ({ path, body: new TextEncoder().encode(body) });
    await h.server.runtime.projects.putFiles(PROJECT, [
      file('requests/get-user.yaml', `description: One user\nmethod: GET\nurl: ${base}/users/1\nexpected_status: 200\nignore_fields: [body.served_at]\n`),
      file('requests/py-crash.yaml', `url: ${base}/py/users/7\nexpected_status: 200\n`),
      file('requests/node-crash.yaml', `url: ${base}/node/users/7\n`),
      file('requests/whoami.yaml', `url: ${base}/whoami\nheaders:\n  authorization: "Bearer {{secret:ZERO_HTTP_SECRET_ZAP_TEST}}"\n`),
      file('requests/broken.yaml', 'method: GET\nurl: /users/1\n'),
      file('app/api/users.py', source(60, 42, '    return USERS[user_id]  # the failing line')),
      file('tests/api/test_users.py', source(10, 1, 'import pytest')),
      file('src/routes/users.js', source(30, 12, '  return res.json({ email: user.email }); // the failing line')),
    ]);
    await h.server.runtime.projects.putAnalysis(PROJECT, 'technology-identification', { technologies: [{ name: 'FastAPI', package: 'fastapi@0.110.0' }] });
  });
  afterAll(async () => {
    delete process.env.ZERO_HTTP_SECRET_ZAP_TEST;
    delete process.env.ZERO_HTTP_SECRET_ZAP_TEST_HOSTS;
    await h.close();
    await new Promise((resolve) => api.close(resolve));
  });
  afterEach(() => h.fake.reset());

  it('runs a saved request, saves a baseline, and reports what changed when the API answers differently', async () => {
    const run = await modelCalls(h, 'run_request', { name: 'get-user' }, zap);
    expect(run.result?.is_error).toBeFalsy();
    expect(text(run.result)).toContain('HTTP 200 OK from GET');
    expect(text(run.result)).toContain('PASS: status 200 as expected.');

    const saved = await modelCalls(h, 'save_baseline', { name: 'get-user' }, zap);
    expect(text(saved.result)).toMatch(/^Saved baselines\/get-user\.json in acme\/users-api: status 200, headers content-type, a json body\./);
    const baseline = JSON.parse((await projectFile('baselines/get-user.json'))!);
    expect(baseline).toMatchObject({ v: 1, request: 'get-user', status: 200, headers: { 'content-type': 'application/json' }, body_kind: 'json', body: { id: 1, name: 'Ada' } });
    expect(baseline.body).not.toHaveProperty('served_at');

    // Only an ignored field moves: no regression.
    user = { status: 200, body: { ...user.body, served_at: '2026-02-02T00:00:00Z' } };
    const same = await modelCalls(h, 'check_regression', { name: 'get-user' }, zap);
    expect(text(same.result)).toContain('No change: status 200, headers of interest and body as in the baseline.');

    user = { status: 201, body: { id: 1, name: 'Ada Lovelace', email: 'ada@example.com', served_at: 'now' } };
    const check = await modelCalls(h, 'check_regression', { name: 'get-user' }, zap);
    expect(check.result?.is_error).toBeFalsy();
    const lines = text(check.result).split('\n');
    expect(lines).toContain('REGRESSION: 3 changes:');
    expect(lines).toContain('~ status: 200 → 201');
    expect(lines).toContain('~ body.name: "Ada" → "Ada Lovelace"');
    expect(lines).toContain('+ body.email: "ada@example.com" (added)');
    expect(JSON.parse((await projectFile('snapshots/get-user.json'))!)).toMatchObject({ status: 201, body: { name: 'Ada Lovelace' } });
    // The baseline stays the definition of normal.
    expect(JSON.parse((await projectFile('baselines/get-user.json'))!)).toMatchObject({ status: 200, body: { name: 'Ada' } });
  });

  it('maps a Python and a Node stack trace in an error body to the project’s files, with the lines around each frame', async () => {
    const py = text((await modelCalls(h, 'run_request', { name: 'py-crash' }, zap)).result).split('\n');
    expect(py).toContain('FAIL: expected status 200, got 500.');
    expect(py).toContain('error message: Internal Server Error');
    expect(py).toContain('error type: KeyError');
    expect(py).toContain('stack trace: 2 frames, 1 in the project\'s files');
    expect(py).toContain('1. app/api/users.py:42 in get_user (python) [trace: /srv/app/app/api/users.py]');
    expect(py).toContain('> 42 |     return USERS[user_id]  # the failing line');
    expect(py).toContain('  39 | # line 39');
    expect(py).toContain('  45 | # line 45');
    expect(py).toContain('2. /usr/lib/python3.11/site-packages/starlette/routing.py:74 in app (python): library or runtime code');

    const node = text((await modelCalls(h, 'run_request', { name: 'node-crash' }, zap)).result).split('\n');
    expect(node).toContain('error type: TypeError');
    expect(node).toContain('1. src/routes/users.js:12 in getUser (node) [trace: /srv/app/src/routes/users.js]');
    expect(node).toContain('> 12 |   return res.json({ email: user.email }); // the failing line');
    expect(node).toContain('2. /srv/app/node_modules/express/lib/router/layer.js:95 in Layer.handle [as handle_request] (node): library or runtime code');

    // The same from a body the model holds, with the context it asks for.
    const parsed = text((await modelCalls(h, 'parse_stack_trace', { text: JSON.stringify(NODE_ERROR), context_lines: 1 }, zap)).result).split('\n');
    expect(parsed).toEqual(expect.arrayContaining(['  11 | # line 11', '> 12 |   return res.json({ email: user.email }); // the failing line', '  13 | # line 13']));
    expect(parsed).not.toContain('  10 | # line 10');
  });

  it('names the file and the field of a malformed saved request, when listing and when running it', async () => {
    const run = await modelCalls(h, 'run_request', { name: 'broken' }, zap);
    expect(run.result).toMatchObject({ is_error: true, content: 'requests/broken.yaml: field url: must be an absolute URL, e.g. https://api.example.com/v1/items' });
    const list = text((await modelCalls(h, 'list_requests', {}, zap)).result).split('\n');
    expect(list).toContain('broken\tINVALID: requests/broken.yaml: field url: must be an absolute URL, e.g. https://api.example.com/v1/items');
    expect(list).toContain(`get-user\tGET ${base}/users/1\texpects 200\tOne user`);
    const missing = await modelCalls(h, 'run_request', { name: 'nope' }, zap);
    expect(missing.result).toMatchObject({ is_error: true, content: expect.stringContaining('No saved request "nope"') });
  });

  it('saves a request the model wrote, checked as run_request reads it, and refuses one http_request would refuse', async () => {
    const saved = await modelCalls(h, 'save_request', { name: 'list-users', method: 'GET', url: `${base}/users`, expected_status: 200 }, zap);
    expect(text(saved.result)).toMatch(/^Saved requests\/list-users\.yaml/);
    expect(await projectFile('requests/list-users.yaml')).toBe(`method: GET\nurl: ${base}/users\nexpected_status: 200\n`);
    const again = await modelCalls(h, 'save_request', { name: 'list-users', url: `${base}/other` }, zap);
    expect(again.result).toMatchObject({ is_error: true, content: expect.stringContaining('already exists') });
    const bodyOnGet = await modelCalls(h, 'save_request', { name: 'bad-get', url: `${base}/users`, body: { a: 1 } }, zap);
    expect(bodyOnGet.result).toMatchObject({ is_error: true, content: 'body: a GET request carries no body. Nothing was saved.' });
    const secretInBody = await modelCalls(h, 'save_request', { name: 'leak', method: 'POST', url: `${base}/users`, body: '{{secret:ZERO_HTTP_SECRET_ZAP_TEST}}' }, zap);
    expect(secretInBody.result).toMatchObject({ is_error: true, content: 'body: secrets can be referenced in header values only. Nothing was saved.' });
    expect(await projectFile('requests/leak.yaml')).toBeUndefined();
  });

  it('asks a person before it sends a request or writes a baseline, under Zero’s default policy; reading the library is allowed', async () => {
    const agent = await requireAgent(h.server.runtime.catalog, 'zap');
    const policy = await new ToolRegistry(builtinTools(), { permissions: {} }).effectivePolicy(agent);
    const decisions = Object.fromEntries(['list_requests', 'parse_stack_trace', 'run_request', 'save_request', 'save_baseline', 'check_regression'].map((name) => [name, policy[name]?.decision]));
    expect(decisions).toEqual({ list_requests: 'allow', parse_stack_trace: 'allow', run_request: 'ask', save_request: 'ask', save_baseline: 'ask', check_regression: 'ask' });
  });

  it('keeps secrets out of baselines and results: a reflected credential is scrubbed before it is stored', async () => {
    const saved = await modelCalls(h, 'save_baseline', { name: 'whoami' }, zap);
    expect(saved.result?.is_error).toBeFalsy();
    const stored = (await projectFile('baselines/whoami.json'))!;
    expect(stored).not.toContain(SECRET);
    expect(JSON.parse(stored).body.authorization).toMatch(/^Bearer /);
    expect(JSON.stringify(saved.log)).not.toContain(SECRET);
  });

  it('is who Zero hands API testing to, and its prompt carries the framework hints of the project’s analysis', async () => {
    const zapPrompt = (request: FakeRequest) => (Array.isArray(request.body.system) ? request.body.system.map((b) => b.text).join('\n') : String(request.body.system));
    h.fake.script(
      { toolCalls: [{ id: 'toolu_to_zap', name: 'delegate_agent', input: { agent_id: 'zap', task: 'Run the saved requests of acme/users-api and report failures.' } }] },
      { toolCalls: [{ id: 'toolu_list', name: 'list_requests', input: {} }] },
      { text: 'get-user passes; broken.yaml is invalid.' },
      { text: 'ZAP says get-user passes.' },
    );
    const { events } = await chatStream(h.url, { agent_id: 'zero', project_id: PROJECT, message: 'Test my API.' });
    expect(events.filter((e) => e.type === 'agent_switch').map((e) => `${(e as { from: string }).from}→${(e as { to: string }).to}`)).toEqual(['zero→zap', 'zap→zero']);
    const [zeroFirst, zapFirst] = h.fake.requests.slice(-4);
    expect(zapPrompt(zapFirst!)).toMatch(/^You are ZAP, an agent of Zero/);
    expect(zapPrompt(zapFirst!)).toContain("## Framework hints\nThe project's analysis shows fastapi.");
    expect(zapPrompt(zapFirst!)).toContain('- fastapi: Routes: grep for `@app.get(`');
    expect(zapPrompt(zeroFirst!)).not.toContain('## Framework hints');
    expect(zapPrompt(zeroFirst!)).toContain('zap: testing a project');
  });
});
