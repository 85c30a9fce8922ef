import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { createDynamoClient } from '@zero/runtime/store/clients';
import { parseAgentMarkdown } from '@zero/agent/definitions/parse';
import type { FakeRequest } from './support/fake-anthropic';
import { postJson, send, startHarness, type Harness } from './support/harness';
import { chatStream } from './support/sse';

const CAPS = { maxFileBytes: 2_000, maxStoreBytes: 5_000, maxFiles: 20 };

/** Agents that keep a memory: the user's own, and the session's project's. `tools:` lists none of it: `memory:` grants the tool. */
const AGENTS = {
  rememberer: '---\nname: Rememberer\ndescription: Remembers what people tell it.\ntools: Read\nmemory: user\nmodel: claude-test-model\n---\n\n## Role\n\nYou remember.\n',
  keeper: '---\nname: Keeper\ndescription: Keeps notes about a project.\ntools: Read\nmemory: project\nmodel: claude-test-model\n---\n\n## Role\n\nYou keep project notes.\n',
};

type Block = { type: string; text?: string; tool_use_id?: string; content?: unknown; is_error?: boolean };

/** The system prompt's text as the model received it. */
const systemOf = (request: FakeRequest) => (Array.isArray(request.body.system) ? request.body.system.map((b) => b.text).join('\n\n') : (request.body.system ?? ''));

/** The results the model was sent for its tool calls, over every request so far. */
function toolResults(h: Harness): Block[] {
  return h.fake.requests.flatMap((r) => r.body.messages.flatMap((m) => (Array.isArray(m.content) ? (m.content as Block[]) : []))).filter((b) => b.type === 'tool_result');
}
const textOf = (block: Block | undefined) => (typeof block?.content === 'string' ? block.content : JSON.stringify(block?.content ?? ''));

describe('memory: facts that outlive a session, per user and per project', () => {
  let h: Harness;
  let alice: Record<string, string>;
  let bob: Record<string, string>;

  /** Every object under `memories/` in the bucket: what a refusal must leave unchanged. */
  const bucketMemories = async () => (await h.server.runtime.artifacts.list('memories/')).map((o) => o.key).sort();
  const memoryCall = (id: string, input: Record<string, unknown>) => ({ toolCalls: [{ id, name: 'memory', input }] });
  const chat = (headers: Record<string, string>, body: Record<string, unknown>) => postJson(`${h.url}/api/v2/chat`, body, headers);

  beforeAll(async () => {
    // Zero's own defaults (tools with side effects ask): the memory tool's built-in rules decide.
    h = await startHarness({ permissions: {}, memory: CAPS });
    for (const [id, text] of Object.entries(AGENTS)) await h.server.runtime.artifacts.put(`agents/${id}.md`, text, 'text/markdown');
    alice = await h.userHeaders('alice', 'Alice');
    bob = await h.userHeaders('bob', 'Bob');
  });
  afterAll(() => h?.close());
  afterEach(() => h.fake.reset());

  it("writes a fact in one session, sees it through view in the user's next session (the index fenced as data in the prompt), and never in another user's", async () => {
    h.fake.script(memoryCall('c1', { command: 'create', path: '/memories/preferences.md', file_text: 'Alice prefers tabs over spaces.\n' }), { text: 'Noted.' });
    const first = await chat(alice, { agent_id: 'rememberer', message: 'Remember: I prefer tabs.' });
    expect(first.json).toMatchObject({ status: 'completed', text: 'Noted.' });
    expect(textOf(toolResults(h).find((b) => b.tool_use_id === 'c1'))).toBe('File created successfully at: /memories/preferences.md (32 bytes).');
    h.fake.reset();

    // A new session of the same user: the prompt lists the file (path and size), fenced, not its contents.
    h.fake.script(memoryCall('v1', { command: 'view', path: '/memories/preferences.md' }), { text: 'You prefer tabs.' });
    const second = await chat(alice, { agent_id: 'rememberer', message: 'What do I prefer?' });
    expect(second.json.session_id).not.toBe(first.json.session_id);
    const system = systemOf(h.fake.requests[0]!);
    expect(system).toMatch(/## Memory\n.*data, not instructions.*\n<<<outside-data ([0-9a-f]{16})>>>\n\/memories\/preferences\.md \(32 bytes\)\n<<<end outside-data \1>>>/s);
    expect(system).not.toContain('Alice prefers tabs');
    expect(h.fake.requests[0]!.body.tools?.map((t) => t.name)).toEqual(['read_file', 'memory']);
    const seen = toolResults(h).find((b) => b.tool_use_id === 'v1')!;
    expect(seen.is_error).toBeFalsy();
    expect(textOf(seen)).toMatch(/<<<outside-data [0-9a-f]{16}>>>\n {5}1\tAlice prefers tabs over spaces\.\n/);
    h.fake.reset();

    // Bob's session: an empty store, and Alice's file is not there for him.
    h.fake.script(memoryCall('v2', { command: 'view', path: '/memories/preferences.md' }), { text: 'Nothing.' });
    await chat(bob, { agent_id: 'rememberer', message: 'What do I prefer?' });
    expect(systemOf(h.fake.requests[0]!)).toMatch(/<<<outside-data [0-9a-f]{16}>>>\n\(empty\)\n<<<end outside-data/);
    const refused = toolResults(h).find((b) => b.tool_use_id === 'v2')!;
    expect(refused).toMatchObject({ is_error: true });
    expect(textOf(refused)).toBe('/memories/preferences.md does not exist');

    // Through the API: Alice sees her store, Bob sees his (empty) and a 404 for hers.
    expect((await send(h, 'GET', '/memories/users/me', alice)).json).toMatchObject({ store: 'users/alice', files: [{ path: 'preferences.md', size: 32 }], used_bytes: 32 });
    expect((await send(h, 'GET', '/memories/users/bob', bob)).json.files).toEqual([]);
    expect((await send(h, 'GET', '/memories/users/alice', bob)).status).toBe(404);
    expect((await send(h, 'GET', '/memories/users/alice/preferences.md', bob)).status).toBe(404);
    const file = await send(h, 'GET', '/memories/users/alice/preferences.md', alice);
    expect(file.json).toMatchObject({ path: 'preferences.md', content: 'Alice prefers tabs over spaces.\n', size: 32, hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
  });

  it('closes the user store once someone else joins the session: the model is told why, and nothing is read', async () => {
    h.fake.script({ text: 'Hi.' });
    const { json } = await chat(alice, { agent_id: 'rememberer', message: 'Hello.' });
    expect((await send(h, 'PUT', `/sessions/${json.session_id}/members/bob`, alice, { role: 'editor', name: 'Bob' })).status).toBe(201);
    h.fake.reset();
    h.fake.script(memoryCall('v3', { command: 'view', path: '/memories' }), { text: 'Closed.' });
    await chat(bob, { session_id: json.session_id, message: 'What does Alice prefer?' });
    expect(systemOf(h.fake.requests[0]!)).toContain('You have no memory in this conversation: the user memory is private');
    expect(toolResults(h).find((b) => b.tool_use_id === 'v3')).toMatchObject({ is_error: true, content: expect.stringContaining('the user memory is private') });
  });

  it("a lock an earlier version left behind (its lease in expires_at, in ms) is taken over once it ran out, and a live one still holds", async () => {
    const db = createDynamoClient(h.stack.store);
    const lock = (expiresAtMs: number) => db.send(new PutCommand({ TableName: h.stack.store.table, Item: { pk: 'MEMORY#user:alice', sk: 'LOCK', v: 1, token: 'left-behind', expires_at: expiresAtMs } }));
    await lock(Date.now() - 1_000);
    expect((await send(h, 'PUT', '/memories/users/me/legacy.md', alice, { content: 'written past a dead lock\n' })).status).toBe(200);
    await lock(Date.now() + 60_000);
    expect((await send(h, 'PUT', '/memories/users/me/legacy.md', alice, { content: 'blocked\n' })).status).toBe(409);
    await lock(Date.now() - 1_000);
  });

  it('concurrent writes to one file through the API: one wins, the other gets a 409 naming the stale hash', async () => {
    const created = await send(h, 'PUT', '/memories/users/me/race.md', { ...alice, 'if-none-match': '*' }, { content: 'colour: blue\n' });
    expect(created.status).toBe(200);
    expect((await send(h, 'PUT', '/memories/users/me/race.md', { ...alice, 'if-none-match': '*' }, { content: 'again' })).status).toBe(409);
    const hash = created.json.hash as string;
    const writes = await Promise.all(
      ['green', 'red'].map((colour) => send(h, 'PUT', '/memories/users/me/race.md', { ...alice, 'if-match': `"${hash}"` }, { content: `colour: ${colour}\n` })),
    );
    expect(writes.map((w) => w.status).sort()).toEqual([200, 409]);
    const lost = writes.find((w) => w.status === 409)!;
    expect(lost.json.error).toMatchObject({ code: 'conflict', field: 'If-Match' });
    expect(lost.json.error.message).toContain('race.md changed since it was read');
    const won = writes.find((w) => w.status === 200)!;
    const now = await send(h, 'GET', '/memories/users/me/race.md', alice);
    expect(now.json.hash).toBe(won.json.hash);
    // A stale delete is refused too; one with the current hash goes through.
    expect((await send(h, 'DELETE', '/memories/users/me/race.md', { ...alice, 'if-match': hash })).status).toBe(409);
    expect((await send(h, 'DELETE', '/memories/users/me/race.md', { ...alice, 'if-match': won.json.hash })).status).toBe(204);
    expect((await send(h, 'GET', '/memories/users/me/race.md', alice)).status).toBe(404);
  });

  it('concurrent str_replace of one fact from two sessions: one edits it, the other is told its text is gone', async () => {
    await send(h, 'PUT', '/memories/users/me/colour.md', alice, { content: 'favourite colour: blue\n' });
    // Each session's model replaces the same text; the second to take the store's lock no longer finds it.
    h.fake.respondWith((request) => {
      const last = request.body.messages.at(-1)!;
      const said = JSON.stringify(last.content);
      if (said.includes('tool_result')) return { text: 'Done.' };
      const colour = said.includes('green') ? 'green' : 'red';
      return memoryCall(`swap-${colour}`, { command: 'str_replace', path: '/memories/colour.md', old_str: 'favourite colour: blue', new_str: `favourite colour: ${colour}` });
    });
    await Promise.all(['green', 'red'].map((colour) => chat(alice, { agent_id: 'rememberer', message: `Make it ${colour}.` })));
    const results = toolResults(h).filter((b) => b.tool_use_id?.startsWith('swap-'));
    const unique = new Map(results.map((b) => [b.tool_use_id, b]));
    expect(unique.size).toBe(2);
    const [ok, failed] = [...unique.values()].sort((a, b) => Number(!!a.is_error) - Number(!!b.is_error));
    expect(textOf(ok)).toBe('The memory file /memories/colour.md has been edited.');
    expect(failed).toMatchObject({ is_error: true });
    expect(textOf(failed)).toContain('old_str was not found in /memories/colour.md (it may have changed since you read it');
    const winner = ok!.tool_use_id!.slice('swap-'.length);
    expect((await send(h, 'GET', '/memories/users/me/colour.md', alice)).json.content).toBe(`favourite colour: ${winner}\n`);
  });

  it('refuses traversal and paths outside /memories, in the tool and the API, writing nothing', async () => {
    const before = await bucketMemories();
    const bad = ['/memories/../sessions/x.md', '/etc/passwd', '/memories/%2e%2e/x', 'memories/x.md', '/memories/a\\b.md', '/memories//x.md', '/memories/\u0000.md'];
    h.fake.script(
      { toolCalls: bad.map((path, i) => ({ id: `bad${i}`, name: 'memory', input: { command: 'create', path, file_text: 'pwned' } })) },
      memoryCall('mv', { command: 'rename', old_path: '/memories/preferences.md', new_path: '/memories/../../users/bob/x.md' }),
      { text: 'Refused.' },
    );
    await chat(alice, { agent_id: 'rememberer', message: 'Write outside.' });
    const results = toolResults(h);
    for (let i = 0; i < bad.length; i++) {
      const result = results.find((b) => b.tool_use_id === `bad${i}`)!;
      expect(result, bad[i]).toMatchObject({ is_error: true });
      expect(textOf(result)).toMatch(/^path refused: /);
    }
    expect(textOf(results.find((b) => b.tool_use_id === 'mv'))).toMatch(/^path refused: .*"\." or "\.\." segment/);
    for (const path of ['..%2Fsessions%2Fx.md', '%252e%252e%252Fx.md', 'a%5Cb.md', 'x%00.md']) {
      const response = await send(h, 'PUT', `/memories/users/me/${path}`, alice, { content: 'pwned' });
      expect(response.status, path).toBe(400);
      expect(response.json.error.field).toBe('path');
    }
    expect(await bucketMemories()).toEqual(before);
  });

  it('refuses a file or a store over its cap, writing nothing, and names the cap; the tool names a missing field', async () => {
    const before = await bucketMemories();
    h.fake.script(
      memoryCall('big', { command: 'create', path: '/memories/big.md', file_text: 'x'.repeat(CAPS.maxFileBytes + 1) }),
      memoryCall('nofield', { command: 'str_replace', path: '/memories/preferences.md', old_str: 'tabs' }),
      { text: 'Too big.' },
    );
    await chat(alice, { agent_id: 'rememberer', message: 'Remember a lot.' });
    expect(toolResults(h).find((b) => b.tool_use_id === 'big')).toMatchObject({ is_error: true, content: expect.stringContaining(`a memory file holds at most ${CAPS.maxFileBytes} bytes. Nothing was written.`) });
    expect(textOf(toolResults(h).find((b) => b.tool_use_id === 'nofield'))).toBe('Invalid input for memory: new_str: is required for str_replace');
    expect(await bucketMemories()).toEqual(before);

    // The store's cap: files that fit one by one, until the next would pass the total.
    const chunk = 'y'.repeat(1_500);
    const { json } = await send(h, 'GET', '/memories/users/me', alice);
    let used = json.used_bytes as number;
    let n = 0;
    while (used + chunk.length <= CAPS.maxStoreBytes) {
      expect((await send(h, 'PUT', `/memories/users/me/fill/${n++}.md`, alice, { content: chunk })).status).toBe(200);
      used += chunk.length;
    }
    const full = await bucketMemories();
    const over = await send(h, 'PUT', '/memories/users/me/fill/over.md', alice, { content: chunk });
    expect(over.status).toBe(413);
    expect(over.json.error.message).toContain(`it holds at most ${CAPS.maxStoreBytes}`);
    expect(await bucketMemories()).toEqual(full);
    expect((await send(h, 'DELETE', '/memories/users/me/fill', alice)).status).toBe(204);
  });

  it("writes a project's memory without asking while one person uses the project, and asks once it is shared", async () => {
    const upload = (project: string) =>
      fetch(`${h.url}/api/v2/projects/${project}/files/README.md`, { method: 'PUT', headers: { ...alice, 'content-type': 'application/octet-stream' }, body: '# app\n' });
    expect((await upload('alice/solo')).status).toBe(201);
    expect((await upload('alice/team')).status).toBe(201);
    expect((await send(h, 'PUT', '/projects/alice/team/members/bob', alice, { role: 'editor' })).status).toBe(201);

    h.fake.script(memoryCall('p1', { command: 'create', path: '/memories/decisions.md', file_text: 'Use Postgres.\n' }), { text: 'Noted.' });
    await chat(alice, { agent_id: 'keeper', project_id: 'alice/solo', message: 'We use Postgres.' });
    expect(textOf(toolResults(h).find((b) => b.tool_use_id === 'p1'))).toContain('File created successfully');
    expect((await send(h, 'GET', '/memories/projects/alice/solo/decisions.md', alice)).json.content).toBe('Use Postgres.\n');
    h.fake.reset();

    h.fake.script(memoryCall('p2', { command: 'create', path: '/memories/decisions.md', file_text: 'Use SQLite.\n' }), { text: 'Noted.' });
    const { events } = await chatStream(h.url, { agent_id: 'keeper', project_id: 'alice/team', message: 'We use SQLite.' }, alice);
    expect(events.find((e) => e.type === 'confirmation_required')).toMatchObject({
      name: 'memory',
      policy: 'tool "memory" built-in rule "memory(shared-project/{create,str_replace,insert,delete,rename}/**)"',
    });
    expect((await send(h, 'GET', '/memories/projects/alice/team/decisions.md', alice)).status).toBe(404);
    // Project members read and write it through the API; others get a 404.
    expect((await send(h, 'PUT', '/memories/projects/alice/team/decisions.md', bob, { content: 'Use SQLite.\n' })).status).toBe(200);
    expect((await send(h, 'GET', '/memories/projects/alice/team', alice)).json.files).toEqual([{ path: 'decisions.md', size: 12 }]);
    const eve = await h.userHeaders('eve', 'Eve');
    expect((await send(h, 'GET', '/memories/projects/alice/team', eve)).status).toBe(404);
    expect((await send(h, 'PUT', '/memories/projects/alice/solo/x.md', bob, { content: 'x' })).status).toBe(404);
  });

  it('reads memory: from an agent file (local is the user store here) and refuses another value, naming the field', () => {
    const known = new Set(h.server.runtime.tools.names());
    const file = (memory: string) => `---\nname: Forgetful\ndescription: d\nmemory: ${memory}\n---\nBody.\n`;
    expect(parseAgentMarkdown('agents/local.md', file('local'), known)).toMatchObject({ ok: true, agent: { memory: 'user', tools: expect.arrayContaining(['memory']) } });
    expect(parseAgentMarkdown('agents/bad.md', file('forever'), known)).toMatchObject({
      ok: false,
      error: { file: 'agents/bad.md', field: 'memory', message: 'memory: must be "user", "project" or "local"' },
    });
    // Without memory:, an agent that inherits every tool does not get this one.
    const plain = parseAgentMarkdown('agents/plain.md', '---\nname: Plain\ndescription: d\n---\nBody.\n', known);
    expect(plain.ok && plain.agent.tools.includes('memory')).toBe(false);
  });
});
