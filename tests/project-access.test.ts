import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { InProcessQueue } from '@zero/runtime/sessions/queue';
import { signSha256 } from '@zero/integrations/webhooks/signature';
import { DEV, getJson, postJson, startHarness, type Harness } from './support/harness';
import { chatStream } from './support/sse';

const SECRET = 'project access test secret';
type Headers = Record<string, string>;

/** The tool results the model received in request `index`, by tool_use id. */
function resultsSeen(h: Harness, index: number): Record<string, { content: string; is_error: boolean }> {
  const last = h.fake.requests[index]!.body.messages.at(-1)!.content as { type: string; tool_use_id: string; content: string; is_error?: boolean }[];
  return Object.fromEntries(last.filter((b) => b.type === 'tool_result').map((b) => [b.tool_use_id, { content: b.content, is_error: !!b.is_error }]));
}

describe('project members and roles', () => {
  let h: Harness;
  let alice: Headers;
  let bob: Headers;
  let eve: Headers;

  const api = (path: string) => `${h.url}/api/v2${path}`;
  const send = async (method: string, path: string, headers: Headers, body?: string) => {
    const response = await fetch(api(path), { method, headers: { ...headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) }, body });
    const text = await response.text();
    return { status: response.status, text, json: text.startsWith('{') ? JSON.parse(text) : undefined };
  };
  const putFile = (project: string, path: string, body: string, headers: Headers) => send('PUT', `/projects/${project}/files/${path}`, headers, body);
  const readFile = (project: string, path: string, headers: Headers = DEV) => send('GET', `/projects/${project}/files/${path}`, headers);
  const setMember = (project: string, userId: string, role: string, headers: Headers) =>
    send('PUT', `/projects/${project}/members/${userId}`, headers, JSON.stringify({ role }));
  const projectIds = async (headers: Headers) => ((await getJson(api('/projects'), headers)).json.projects as { id: string }[]).map((p) => p.id);
  /** Runs one scripted step of tool calls in a chat, then a text answer; returns what each call gave the model. */
  async function toolsIn(body: Record<string, unknown>, headers: Headers, toolCalls: { id: string; name: string; input: Record<string, unknown> }[]) {
    h.fake.reset();
    h.fake.script({ toolCalls }, { text: 'ok' });
    const { events } = await chatStream(h.url, { agent_id: 'investigator', message: 'Look at the project.', ...body }, headers);
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'completed' });
    return { results: resultsSeen(h, 1), sessionId: (events[0] as { session_id: string }).session_id };
  }

  beforeAll(async () => {
    process.env.ZERO_WEBHOOK_SECRET_ACCESS = SECRET;
    h = await startHarness();
    [alice, bob, eve] = await Promise.all([h.userHeaders('alice', 'Alice'), h.userHeaders('bob', 'Bob'), h.userHeaders('eve', 'Eve')]);
    // acme/shop is uploaded by the administrator, as the existing suites do.
    expect((await putFile('acme/shop', 'src/index.js', 'export const shop = 1;\n', DEV)).status).toBe(201);
    expect((await send('PUT', '/projects/acme/shop/analysis/code-security', DEV, '{"summary":{"total":0}}')).status).toBe(201);
  });
  afterAll(() => h.close());
  afterEach(() => h.fake.reset());

  it('a user tied to nothing can neither list, read nor overwrite a project (PUT /projects/acme/shop/files/src/index.js answers 404, the file is unchanged)', async () => {
    expect(await projectIds(eve)).toEqual([]);
    const refused: [string, string, string?][] = [
      ['GET', '/projects/acme/shop'],
      ['GET', '/projects/acme/shop/files'],
      ['GET', '/projects/acme/shop/files/src/index.js'],
      ['GET', '/projects/acme/shop/reports'],
      ['GET', '/projects/acme/shop/analysis/code-security'],
      ['PUT', '/projects/acme/shop/files/src/index.js', 'export const shop = "owned";\n'],
      ['PUT', '/projects/acme/shop/analysis/code-security', '{"summary":{"total":99}}'],
      ['POST', '/projects/acme/shop/archive', 'not even an archive'],
      ['GET', '/projects/acme/shop/members'],
      ['PUT', '/projects/acme/shop/members/eve', '{"role":"owner"}'],
    ];
    for (const [method, path, body] of refused) {
      const { status, json } = await send(method, path, eve, body);
      // The same answer as for a project that does not exist: its existence is not revealed.
      expect({ method, path, status, code: json?.error?.code }).toEqual({ method, path, status: 404, code: 'not_found' });
    }
    expect((await readFile('acme/shop', 'src/index.js')).text).toBe('export const shop = 1;\n');
    expect(await getJson(api('/projects/acme/shop/analysis/code-security'))).toMatchObject({ json: { summary: { total: 0 } } });
  });

  it('the first user to upload a new project owns it; owners add viewers and editors, who read and write in their role; only owners and administrators manage members', async () => {
    expect((await putFile('alice/app', 'README.md', '# App\n', alice)).status).toBe(201);
    const members = await send('GET', '/projects/alice/app/members', alice);
    expect(members.json.members).toEqual([expect.objectContaining({ user_id: 'alice', role: 'owner', added_by: 'alice' })]);
    // Someone else's later upload to the same id is not a first upload.
    expect((await putFile('alice/app', 'README.md', 'taken\n', bob)).status).toBe(404);

    expect(await setMember('alice/app', 'bob', 'viewer', alice)).toMatchObject({ status: 201, json: { member: { user_id: 'bob', role: 'viewer', added_by: 'alice' } } });
    expect(await projectIds(bob)).toEqual(['alice/app']);
    expect(await getJson(api('/projects'), bob)).toMatchObject({ json: { projects: [{ id: 'alice/app', role: 'viewer' }] } });
    expect((await readFile('alice/app', 'README.md', bob)).text).toBe('# App\n');
    const viewerWrite = await putFile('alice/app', 'README.md', 'by bob\n', bob);
    expect(viewerWrite).toMatchObject({ status: 403, json: { error: { code: 'forbidden', message: 'this needs the editor role; you are a viewer of project "alice/app"' } } });
    expect((await send('GET', '/projects/alice/app/members', bob)).status).toBe(403);
    expect((await setMember('alice/app', 'eve', 'owner', bob)).status).toBe(403);

    expect(await setMember('alice/app', 'bob', 'editor', alice)).toMatchObject({ status: 200, json: { member: { role: 'editor' } } });
    expect((await putFile('alice/app', 'src/main.ts', 'export {};\n', bob)).status).toBe(201);
    expect((await send('PUT', '/projects/alice/app/analysis/devops', bob, '{"ok":true}')).status).toBe(201);
    expect((await setMember('alice/app', 'eve', 'viewer', bob)).status).toBe(403);

    // The last owner cannot leave; an owner removes a member, who then sees nothing.
    expect((await send('DELETE', '/projects/alice/app/members/alice', alice)).status).toBe(409);
    expect((await send('DELETE', '/projects/alice/app/members/bob', alice)).status).toBe(204);
    expect((await readFile('alice/app', 'README.md', bob)).status).toBe(404);
    expect(await projectIds(bob)).toEqual([]);

    // Bad input names the field.
    expect(await send('PUT', '/projects/alice/app/members/x%23y', alice, '{"role":"viewer"}')).toMatchObject({ status: 400, json: { error: { field: 'user_id' } } });
    expect(await send('PUT', '/projects/alice/app/members/bob', alice, '{"role":"admin"}')).toMatchObject({ status: 400, json: { error: { field: 'role' } } });
  });

  it('of two first uploads of a new project at once, exactly one user becomes its owner', async () => {
    const [a, b] = await Promise.all([putFile('race/app', 'a.txt', 'alice\n', alice), putFile('race/app', 'b.txt', 'bob\n', bob)]);
    expect([a.status, b.status].sort()).toEqual([201, 404]);
    const winner = a.status === 201 ? 'alice' : 'bob';
    const members = await send('GET', '/projects/race/app/members', DEV);
    expect(members.json.members).toEqual([expect.objectContaining({ user_id: winner, role: 'owner' })]);
  });

  it('administrators see and manage every project', async () => {
    expect(await projectIds(DEV)).toEqual(expect.arrayContaining(['acme/shop', 'alice/app']));
    expect((await readFile('alice/app', 'README.md', DEV)).text).toBe('# App\n');
    expect((await putFile('alice/app', 'ADMIN.md', 'admin was here\n', DEV)).status).toBe(201);
    expect((await setMember('acme/shop', 'eve', 'viewer', DEV)).status).toBe(201);
    expect((await readFile('acme/shop', 'src/index.js', eve)).status).toBe(200);
    expect((await send('DELETE', '/projects/acme/shop/members/eve', DEV)).status).toBe(204);
    expect((await readFile('acme/shop', 'src/index.js', eve)).status).toBe(404);
  });

  it("a session's tools see only the projects every member of the session may see, and write only where every member is an editor", async () => {
    expect((await putFile('alice/tools', 'src/index.ts', 'export const secret = "alice only";\n', alice)).status).toBe(201);
    const calls = [
      { id: 'toolu_read', name: 'read_file', input: { path: 'src/index.ts' } },
      { id: 'toolu_glob', name: 'glob', input: { pattern: '**' } },
      { id: 'toolu_grep', name: 'grep', input: { pattern: 'secret' } },
      { id: 'toolu_list', name: 'list_projects', input: {} },
      { id: 'toolu_write', name: 'write_file', input: { path: 'reports/eve.md', content: 'eve was here' } },
    ];

    // Eve is tied to nothing: every file tool refuses, and she learns nothing of the project.
    const outsider = await toolsIn({ project_id: 'alice/tools' }, eve, calls);
    for (const id of ['toolu_read', 'toolu_glob', 'toolu_grep', 'toolu_write']) {
      expect(outsider.results[id]).toEqual({ is_error: true, content: expect.stringContaining('does not exist or is not shared with everyone in this conversation') });
    }
    expect(outsider.results.toolu_list).toMatchObject({ is_error: false, content: expect.stringMatching(/^No project is shared/) });

    // As a viewer she reads, but her session may not write.
    expect((await setMember('alice/tools', 'eve', 'viewer', alice)).status).toBe(201);
    const viewer = await toolsIn({ project_id: 'alice/tools' }, eve, calls);
    expect(viewer.results.toolu_read).toMatchObject({ is_error: false, content: '1\texport const secret = "alice only";' });
    expect(viewer.results.toolu_glob).toMatchObject({ is_error: false, content: '1 file match "**":\nsrc/index.ts' });
    expect(viewer.results.toolu_grep).toMatchObject({ is_error: false, content: 'src/index.ts' });
    expect(viewer.results.toolu_list!.content).toMatch(/^1 project:\n- alice\/tools \(this conversation's project\)/);
    expect(viewer.results.toolu_write).toEqual({ is_error: true, content: expect.stringContaining('open to this conversation for reading only') });

    // Alice's own session writes; once she shares it with Eve (a viewer of the project), it reads only.
    const own = await toolsIn({ project_id: 'alice/tools' }, alice, calls);
    expect(own.results.toolu_write).toMatchObject({ is_error: false, content: 'Wrote 12 bytes to reports/eve.md in project alice/tools.' });
    expect((await send('PUT', `/sessions/${own.sessionId}/members/eve`, alice, '{"role":"viewer"}')).status).toBe(201);
    h.fake.reset();
    h.fake.script({ toolCalls: [calls[4]!] }, { text: 'ok' });
    await chatStream(h.url, { session_id: own.sessionId, message: 'Again.' }, alice);
    expect(resultsSeen(h, 1).toolu_write).toEqual({ is_error: true, content: expect.stringContaining('open to this conversation for reading only') });

    // With Eve an editor of the project, the shared session writes again.
    expect((await setMember('alice/tools', 'eve', 'editor', alice)).status).toBe(200);
    h.fake.reset();
    h.fake.script({ toolCalls: [calls[4]!] }, { text: 'ok' });
    await chatStream(h.url, { session_id: own.sessionId, message: 'Once more.' }, alice);
    expect(resultsSeen(h, 1).toolu_write).toMatchObject({ is_error: false });

    // An administrator's session sees every project.
    const admin = await toolsIn({ project_id: 'alice/tools' }, DEV, [calls[0]!, calls[3]!]);
    expect(admin.results.toolu_read).toMatchObject({ is_error: false });
    expect(admin.results.toolu_list!.content).toContain('- acme/shop:');
  });

  describe("a webhook session's report", () => {
    let sessionId: string;
    let report: string;
    const reportPath = () => `/projects/acme/shop/reports/${sessionId}.md`;

    beforeAll(async () => {
      const hook = {
        source: 'github',
        secret_ref: 'ZERO_WEBHOOK_SECRET_ACCESS',
        events: ['pull_request'],
        agent_id: 'investigator',
        project: '{{repository.full_name}}',
        prompt: 'Review pull request #{{number}}',
        owner: { user_id: 'alice', name: 'Alice' },
        members: [{ user_id: 'bob', role: 'viewer' }],
      };
      expect((await send('PUT', '/hooks/shop-prs', DEV, JSON.stringify(hook))).status).toBe(201);
      h.fake.script({ text: 'CONFIDENTIAL: the release key is rotated on Fridays.' });
      const body = JSON.stringify({ action: 'opened', number: 7, repository: { full_name: 'acme/shop' } });
      const accepted = await fetch(api('/webhooks/shop-prs'), {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-github-event': 'pull_request', 'x-github-delivery': 'aa-bb-cc-1', 'x-hub-signature-256': signSha256(SECRET, body) },
        body,
      });
      expect(accepted.status).toBe(202);
      sessionId = ((await accepted.json()) as { session_id: string }).session_id;
      await (h.server.runtime.queue as InProcessQueue).idle();
      report = (await send('GET', reportPath(), DEV)).text;
      expect(report).toContain('CONFIDENTIAL');
      // Eve is an editor of the project, but not a member of the session.
      expect((await setMember('acme/shop', 'eve', 'editor', DEV)).status).toBe(201);
    });

    it('is as private as the session: a non-member of the session gets 404 (GET /sessions/<sid> and GET .../reports/<sid>.md alike), members and administrators read it', async () => {
      expect((await getJson(api(`/sessions/${sessionId}`), eve)).status).toBe(404);
      const hidden = await send('GET', reportPath(), eve);
      expect(hidden).toMatchObject({ status: 404, json: { error: { code: 'not_found', field: 'path' } } });
      expect(hidden.text).not.toContain('CONFIDENTIAL');
      expect((await getJson(api('/projects/acme/shop/reports'), eve)).json.reports).toEqual([]);

      // The hook's owner and members got the hook's project, and read the report as members of the session.
      for (const [who, headers] of [['alice', alice], ['bob', bob], ['dev', DEV]] as const) {
        expect({ who, ...(await send('GET', reportPath(), headers)) }).toMatchObject({ who, status: 200, text: report });
        expect((await getJson(api('/projects/acme/shop/reports'), headers)).json.reports).toEqual([expect.objectContaining({ path: `${sessionId}.md` })]);
      }
      expect((await getJson(api('/projects'), bob)).json.projects).toContainEqual(expect.objectContaining({ id: 'acme/shop', role: 'viewer' }));
    });

    it("cannot be overwritten by another session's agent: write_file reports/<sid>.md is an error result and the report is unchanged", async () => {
      const { results } = await toolsIn({ project_id: 'acme/shop' }, eve, [
        { id: 'toolu_overwrite', name: 'write_file', input: { path: `reports/${sessionId}.md`, content: 'Nothing to see here. Approve.' } },
        { id: 'toolu_own', name: 'write_file', input: { path: 'reports/eve-notes.md', content: 'my own notes' } },
      ]);
      expect(results.toolu_overwrite).toEqual({ is_error: true, content: `reports/${sessionId}.md in project acme/shop belongs to another conversation; write under another name.` });
      expect(results.toolu_own).toMatchObject({ is_error: false });
      expect((await send('GET', reportPath(), alice)).text).toBe(report);
      // Eve's own report is hers (and her session's): Alice, an owner of the project but not in Eve's session, does not see it.
      expect((await send('GET', '/projects/acme/shop/reports/eve-notes.md', eve)).text).toBe('my own notes');
      expect((await send('GET', '/projects/acme/shop/reports/eve-notes.md', alice)).status).toBe(404);
    });
  });

  describe('bad input on the project routes', () => {
    it('a project path over 1,024 bytes answers 400 naming the path (not a 500)', async () => {
      const long = `${'a'.repeat(200)}/`.repeat(5) + 'x.txt';
      for (const [method, path] of [
        ['PUT', `/projects/acme/shop/files/${long}`],
        ['GET', `/projects/acme/shop/files/${long}`],
        ['GET', `/projects/acme/shop/reports/${long}`],
        ['GET', `/projects/acme/shop/files?under=${long}`],
      ] as const) {
        const { status, json } = await send(method, path, DEV, method === 'PUT' ? 'x' : undefined);
        expect({ method, path: path.slice(0, 40), status, field: json?.error?.field }).toEqual({
          method,
          path: path.slice(0, 40),
          status: 400,
          field: path.includes('under=') ? 'under' : 'path',
        });
      }
    });

    it('an analysis document nested 5,000 deep answers 400 naming the limit (not a RangeError 500)', async () => {
      const deep = `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`;
      const { status, json } = await send('PUT', '/projects/acme/shop/analysis/deep', DEV, deep);
      expect({ status, error: json?.error }).toEqual({
        status: 400,
        error: { code: 'invalid_request', message: 'an analysis document may nest at most 100 levels deep', field: 'body', limit: 100 },
      });
      const arrays = await send('PUT', '/projects/acme/shop/analysis/deep', DEV, `${'['.repeat(5000)}${']'.repeat(5000)}`);
      expect(arrays.status).toBe(400);
      expect((await send('GET', '/projects/acme/shop/analysis/deep', DEV)).status).toBe(404);
      expect((await send('PUT', '/projects/acme/shop/analysis/deep', DEV, `${'{"a":'.repeat(99)}1${'}'.repeat(99)}`)).status).toBe(201);
    });
  });
});
