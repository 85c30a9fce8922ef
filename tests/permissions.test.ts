import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createS3Client } from '@zero/runtime/store/clients';
import { DEV, getJson, startHarness, type Harness } from './support/harness';
import { chatStream } from './support/sse';

// A Claude Code subagent file with its permission fields as Claude Code reads them, plus Zero's `permissions:`.
const GUARDED = `---
name: guarded
description: Writes notes for the session, never drafts.
tools: Read, Write, Grep
disallowedTools: Grep, Write(artifacts/drafts/**)
permissionMode: default
permissions:
  Write(artifacts/public/**): allow
  mcp__github__*: deny
---

You keep notes.
`;

async function putJson(url: string, body: unknown, headers: Record<string, string> = DEV) {
  const response = await fetch(url, { method: 'PUT', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  return { status: response.status, json: (await response.json()) as any };
}

describe('permission policies, end to end', () => {
  let h: Harness;
  let s3: S3Client;

  beforeAll(async () => {
    h = await startHarness();
    s3 = createS3Client(h.stack.store);
    await s3.send(new PutObjectCommand({ Bucket: h.stack.store.bucket, Key: 'agents/guarded.md', Body: GUARDED, ContentType: 'text/markdown' }));
  });
  afterAll(async () => {
    s3.destroy();
    await h.close();
  });
  afterEach(() => h.fake.reset());

  /** Asks the guarded agent to write `content` to `path` in the session; returns the session id, the tool result and what the model saw next. */
  const write = async (path: string, content: string, sessionId?: string) => {
    h.fake.script({ toolCalls: [{ name: 'write_file', input: { path, content } }] }, { text: 'Done.' });
    const { events } = await chatStream(h.url, { agent_id: 'guarded', message: `Write ${path}.`, ...(sessionId ? { session_id: sessionId } : {}) });
    const start = events.find((e) => e.type === 'start') as { session_id: string };
    const result = events.find((e) => e.type === 'tool_result') as { content: string; is_error: boolean };
    const seen = (h.fake.requests.at(-1)!.body.messages.at(-1)!.content as { type: string; content?: unknown; is_error?: boolean }[]).find((b) => b.type === 'tool_result');
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'completed' });
    h.fake.reset();
    return { sessionId: start.session_id, result, seen };
  };
  const artifact = (sessionId: string, path: string) => h.server.runtime.artifacts.getText(`sessions/${sessionId}/${path}`);

  it('loads an agent file with disallowedTools, permissionMode and permissions:, and GET /agents shows each tool\'s policy', async () => {
    const { status, json } = await getJson(`${h.url}/api/v2/agents`);
    expect(status).toBe(200);
    expect(json.errors.map((e: { file: string }) => e.file)).not.toContain('agents/guarded.md');
    const guarded = json.agents.find((a: { id: string }) => a.id === 'guarded');
    expect(guarded).toMatchObject({
      tools: ['read_file', 'write_file'],
      permission_mode: 'default',
      permissions: { 'write_file(artifacts/public/**)': 'allow', 'mcp__github__*': 'deny', grep: 'deny', 'write_file(artifacts/drafts/**)': 'deny' },
      warnings: [],
    });
    expect(guarded.policy).toEqual({
      read_file: { decision: 'allow', level: 'deployment', source: 'the deployment default for read-only tools', input_rules: [] },
      write_file: {
        decision: 'allow',
        level: 'deployment',
        source: 'the deployment default for tools with side effects',
        input_rules: [
          { rule: 'write_file(artifacts/public/**)', decision: 'allow', level: 'agent' },
          { rule: 'write_file(artifacts/drafts/**)', decision: 'deny', level: 'agent' },
        ],
      },
    });
    // Grep was taken away: the model is not offered it.
    h.fake.script({ text: 'Hi.' });
    await chatStream(h.url, { agent_id: 'guarded', message: 'Hello.' });
    expect(h.fake.requests[0]!.body.tools!.map((t) => t.name).sort()).toEqual(['read_file', 'write_file']);
  });

  it('a write the agent file denies never runs, and the model sees why', async () => {
    const { sessionId, result, seen } = await write('artifacts/drafts/plan.md', 'secret plan');
    const expected = 'Tool "write_file" was not run: the permission policy denies it (agent "guarded" permissions "write_file(artifacts/drafts/**)").';
    expect(result).toMatchObject({ is_error: true, content: expected });
    expect(seen).toMatchObject({ is_error: true, content: expected });
    expect(await artifact(sessionId, 'artifacts/drafts/plan.md')).toBeUndefined();
    const { json } = await getJson(`${h.url}/api/v2/sessions/${sessionId}`);
    expect(json.artifacts).toEqual([]);
  });

  it("an owner's session override changes the outcome: a denied write leaves the file unchanged, a later allow lets it through", async () => {
    const first = await write('artifacts/notes.md', 'v1');
    expect(first.result).toMatchObject({ is_error: false });
    const { sessionId } = first;
    expect(await artifact(sessionId, 'artifacts/notes.md')).toBe('v1');

    const denied = await putJson(`${h.url}/api/v2/sessions/${sessionId}/permissions`, { permissions: { Write: 'deny' } });
    expect(denied.status).toBe(200);
    expect(denied.json).toMatchObject({ permissions: { write_file: 'deny' }, updated_by: 'dev', agent_id: 'guarded' });
    expect(denied.json.effective.write_file).toMatchObject({ decision: 'deny', level: 'session', source: 'session override "write_file"' });

    const refused = await write('artifacts/notes.md', 'v2', sessionId);
    expect(refused.result).toEqual(expect.objectContaining({ is_error: true, content: 'Tool "write_file" was not run: the permission policy denies it (session override "write_file").' }));
    expect(refused.seen).toMatchObject({ is_error: true });
    expect(await artifact(sessionId, 'artifacts/notes.md')).toBe('v1');

    const allowed = await putJson(`${h.url}/api/v2/sessions/${sessionId}/permissions`, { permissions: { write_file: 'deny', 'write_file(artifacts/notes.md)': 'allow' } });
    expect(allowed.json.effective.write_file.input_rules).toEqual([
      { rule: 'write_file(artifacts/notes.md)', decision: 'allow', level: 'session' },
      { rule: 'write_file(artifacts/public/**)', decision: 'allow', level: 'agent' },
      { rule: 'write_file(artifacts/drafts/**)', decision: 'deny', level: 'agent' },
    ]);
    expect((await write('artifacts/notes.md', 'v3', sessionId)).result).toMatchObject({ is_error: false });
    expect(await artifact(sessionId, 'artifacts/notes.md')).toBe('v3');
    // Every member reads the overrides.
    const { json } = await getJson(`${h.url}/api/v2/sessions/${sessionId}/permissions`);
    expect(json.permissions).toEqual({ write_file: 'deny', 'write_file(artifacts/notes.md)': 'allow' });
  });

  it('only owners set overrides: an editor or a viewer gets 403, a stranger 404, and nothing changes', async () => {
    const { sessionId } = await write('artifacts/a.md', 'a');
    const url = `${h.url}/api/v2/sessions/${sessionId}/permissions`;
    for (const [user, role] of [['perm-viewer', 'viewer'], ['perm-editor', 'editor']] as const) {
      expect((await putJson(`${h.url}/api/v2/sessions/${sessionId}/members/${user}`, { role })).status).toBe(201);
      const headers = await h.userHeaders(user);
      const refused = await putJson(url, { permissions: { write_file: 'allow' } }, headers);
      expect(refused.status).toBe(403);
      expect(refused.json.error.code).toBe('forbidden');
      expect((await getJson(url, headers)).status).toBe(200);
    }
    const stranger = await h.userHeaders('perm-stranger');
    expect((await putJson(url, { permissions: {} }, stranger)).status).toBe(404);
    expect((await getJson(url)).json).toMatchObject({ permissions: {} });
    expect((await getJson(url)).json.updated_by).toBeUndefined();
  });

  it.each([
    ['a decision that is not allow/ask/deny', { permissions: { write_file: 'sometimes' } }, 'permissions.write_file', /expected one of "allow"\|"ask"\|"deny"/],
    ['a rule that is not a tool name or glob', { permissions: { 'write_file(': 'allow' } }, 'permissions.write_file(', /must be a tool name or glob/],
    ['a field the body does not take', { permissions: {}, mode: 'plan' }, 'mode', /is not a field this request takes/],
    ['no permissions', {}, 'permissions', /.+/],
  ])('a malformed policy body (%s) is a 400 naming the field', async (_label, body, field, message) => {
    const { sessionId } = await write('artifacts/b.md', 'b');
    const refused = await putJson(`${h.url}/api/v2/sessions/${sessionId}/permissions`, body);
    expect(refused.status).toBe(400);
    expect(refused.json.error).toMatchObject({ code: 'invalid_request', field });
    expect(refused.json.error.message).toMatch(message);
  });
});

describe("the deployment's defaults, as a deployment without ZERO_PERMISSIONS has them", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ permissions: {} });
  });
  afterAll(() => h.close());

  it('asks before a tool with side effects runs and allows read-only tools (web_fetch reads, as an http GET does)', async () => {
    const zero = (await getJson(`${h.url}/api/v2/agents`)).json.agents.find((a: { id: string }) => a.id === 'zero');
    expect(zero.policy.write_file).toMatchObject({ decision: 'ask', level: 'deployment', source: 'the deployment default for tools with side effects' });
    expect(zero.policy.web_fetch).toMatchObject({ decision: 'allow', source: 'the deployment default for read-only tools' });
    expect(zero.policy.read_file).toMatchObject({ decision: 'allow' });

    h.fake.script({ toolCalls: [{ name: 'write_file', input: { path: 'artifacts/notes.md', content: 'notes' } }] }, { text: 'Written.' });
    const { events } = await chatStream(h.url, { agent_id: 'zero', message: 'Write notes.md.' });
    const sessionId = (events.find((e) => e.type === 'start') as { session_id: string }).session_id;
    expect(events.find((e) => e.type === 'confirmation_required')).toMatchObject({ name: 'write_file', policy: 'the deployment default for tools with side effects' });
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'awaiting_approval' });
    // Nothing was written while the call waits.
    await expect(h.server.runtime.artifacts.getText(`sessions/${sessionId}/artifacts/notes.md`)).resolves.toBeUndefined();
  });
});
