import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic, { toFile } from '@anthropic-ai/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type * as z from 'zod';
import { unzipFiles } from '@zero/runtime/skills/zip';
import { createRunCommandTool } from '@zero/runtime/tools/run-command';
import { syncAgents } from '../local/stack';
import { DEV_KEY, postJson, startHarness, type Harness } from './support/harness';
import { agentSchema, apiErrorSchema, sessionEventSchema, type SessionEvent, valid } from './support/managed-agents-schemas';
import { deletedSkillSchema, deletedSkillVersionSchema, pageSchema, skillSchema, skillVersionSchema } from './support/skills-schemas';


const FIXTURES = join(import.meta.dirname, 'fixtures', 'skills');

/** Every file of a folder, relative to it. */
function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? walk(join(dir, name)).map((p) => `${name}/${p}`) : [name]));
}

/** A skill's folder as the SDK uploads it: each file named `<folder>/<path>`, as Anthropic's docs show. */
const folderFiles = (folder: string, dir = join(FIXTURES, folder)) => Promise.all(walk(dir).map((path) => toFile(readFileSync(join(dir, path)), `${folder}/${path}`)));
/** An upload made of these files' texts. */
const filesOf = (files: Record<string, string>) => Promise.all(Object.entries(files).map(([name, text]) => toFile(Buffer.from(text), name)));

const skillMd = (front: string, body = '# Body\n') => `---\n${front}\n---\n${body}`;

/** The error an SDK call ends with: its status, and the API error body checked against the SDK's error type. */
async function refusal(call: Promise<unknown>): Promise<{ status: number; message: string }> {
  const error = await call.then(() => undefined, (e: unknown) => e);
  if (!(error instanceof Anthropic.APIError)) throw new Error(`expected the API to refuse, got ${JSON.stringify(error)}`);
  return { status: error.status!, message: valid(apiErrorSchema, error.error).error.message };
}

/** A new API key of `user` (not an administrator), as the SDK takes it. */
const keyOf = async (h: Harness, user: string) => (await h.userHeaders(user)).authorization!.slice('Bearer '.length);

describe('Agent Skills (client.beta.skills), through the official SDK', () => {
  let h: Harness;
  let client: Anthropic;

  beforeAll(async () => {
    // The operator lets node run (ZERO_COMMAND_ALLOW=node), as a deployment whose skills' scripts are Node programs would.
    h = await startHarness({ extraTools: [createRunCommandTool({ allow: ['node'], scratchRoot: mkdtempSync(join(tmpdir(), 'zero-skills-scratch-')) })] });
    client = new Anthropic({ apiKey: DEV_KEY, baseURL: h.url, maxRetries: 0 });
  });
  afterAll(() => h.close());
  afterEach(() => h.fake.reset());

  it('creates a skill from a folder upload, adds a version, lists, retrieves, downloads and deletes them, every answer in the SDK\'s types', async () => {
    const created = valid(skillSchema, await client.beta.skills.create({ files: await folderFiles('release-notes') }));
    expect(created).toMatchObject({ display_name: 'release-notes', source: { type: 'custom' } });
    expect(created.id).toMatch(/^skill_/);
    const first = valid(skillVersionSchema, await client.beta.skills.versions.retrieve(created.latest_version_id, { skill_id: created.id }));
    expect(first).toMatchObject({ skill_id: created.id, name: 'release-notes', description: expect.stringMatching(/^Turns a list of merged changes/) });

    // A second version: a new SKILL.md, the same name; the first stays as it was.
    const changed = readFileSync(join(FIXTURES, 'release-notes', 'SKILL.md'), 'utf8').replace('grouped by kind', 'grouped by kind, newest first');
    const second = valid(skillVersionSchema, await client.beta.skills.versions.create(created.id, { files: await filesOf({ 'release-notes/SKILL.md': changed }) }));
    expect(second.description).toContain('newest first');
    expect(valid(skillSchema, await client.beta.skills.retrieve(created.id)).latest_version_id).toBe(second.id);
    expect(valid(skillVersionSchema, await client.beta.skills.versions.retrieve('latest', { skill_id: created.id })).id).toBe(second.id);

    const versions: string[] = [];
    for await (const v of client.beta.skills.versions.list(created.id, { limit: 1 })) versions.push(valid(skillVersionSchema, v).id);
    expect(versions).toEqual([second.id, first.id]);

    const labelled = valid(skillSchema, await client.beta.skills.create({ files: await filesOf({ 'other/SKILL.md': skillMd('name: other\ndescription: Another one.') }), display_name: 'Another skill' }));
    expect(labelled.display_name).toBe('Another skill');
    const listed = valid(pageSchema(skillSchema), await client.beta.skills.list({ limit: 100 }));
    expect(listed.data.map((s) => s.id)).toEqual(expect.arrayContaining([created.id, labelled.id]));
    expect(valid(pageSchema(skillSchema), await client.beta.skills.list({ source: 'anthropic' })).data).toEqual([]);

    // The download is a zip of the version's files, under the skill's name.
    const zip = await client.beta.skills.versions.download(first.id, { skill_id: created.id });
    expect(zip.headers.get('content-type')).toBe('application/zip');
    const files = unzipFiles(new Uint8Array(await zip.arrayBuffer()));
    expect(files.map((f) => f.path).sort()).toEqual(['release-notes/SKILL.md', 'release-notes/reference.md', 'release-notes/scripts/tally.mjs']);
    expect(files.find((f) => f.path.endsWith('tally.mjs'))!.bytes.equals(readFileSync(join(FIXTURES, 'release-notes', 'scripts', 'tally.mjs')))).toBe(true);
    const newer = unzipFiles(new Uint8Array(await (await client.beta.skills.versions.download(second.id, { skill_id: created.id })).arrayBuffer()));
    expect(newer.map((f) => f.path)).toEqual(['release-notes/SKILL.md']);

    // The only version left cannot go (a skill always has one); the skill can, with it.
    expect(valid(deletedSkillVersionSchema, await client.beta.skills.versions.delete(first.id, { skill_id: created.id }))).toEqual({ type: 'skill_version_deleted', id: first.id });
    expect((await refusal(client.beta.skills.versions.retrieve(first.id, { skill_id: created.id }))).status).toBe(404);
    expect(await refusal(client.beta.skills.versions.delete(second.id, { skill_id: created.id }))).toMatchObject({ status: 409, message: expect.stringContaining('delete the skill instead') });
    expect(valid(deletedSkillSchema, await client.beta.skills.delete(created.id))).toEqual({ type: 'skill_deleted', id: created.id });
    expect((await refusal(client.beta.skills.retrieve(created.id))).status).toBe(404);
    expect(valid(pageSchema(skillSchema), await client.beta.skills.list({ limit: 100 })).data.some((s) => s.id === created.id)).toBe(false);
  });

  it("a user's skills are theirs alone: another user's list leaves them out and every call on them is a 404", async () => {
    const alice = new Anthropic({ apiKey: await keyOf(h, 'alice'), baseURL: h.url, maxRetries: 0 });
    const mallory = new Anthropic({ apiKey: await keyOf(h, 'mallory'), baseURL: h.url, maxRetries: 0 });
    const skill = valid(skillSchema, await alice.beta.skills.create({ files: await folderFiles('release-notes') }));
    expect(valid(pageSchema(skillSchema), await mallory.beta.skills.list()).data.some((s) => s.id === skill.id)).toBe(false);
    const version = { skill_id: skill.id };
    const files = await folderFiles('release-notes');
    for (const call of [
      () => mallory.beta.skills.retrieve(skill.id),
      () => mallory.beta.skills.delete(skill.id),
      () => mallory.beta.skills.versions.list(skill.id),
      () => mallory.beta.skills.versions.retrieve(skill.latest_version_id, version),
      () => mallory.beta.skills.versions.download(skill.latest_version_id, version),
      () => mallory.beta.skills.versions.delete(skill.latest_version_id, version),
      () => mallory.beta.skills.versions.create(skill.id, { files }),
    ]) {
      expect(await refusal(call())).toMatchObject({ status: 404, message: `no skill "${skill.id}"` });
    }
    expect(valid(skillSchema, await alice.beta.skills.retrieve(skill.id)).latest_version_id).toBe(skill.latest_version_id);
  });

  it('refuses an upload that is not a skill with a 4xx naming what is wrong, and stores nothing', async () => {
    const before = valid(pageSchema(skillSchema), await client.beta.skills.list({ limit: 1000 })).data.length;
    const cases: [Record<string, string>, number, RegExp][] = [
      [{ 'x/SKILL.md': '# no front matter' }, 400, /^SKILL\.md: must start with YAML front matter/],
      [{ 'x/SKILL.md': skillMd('description: no name') }, 400, /^SKILL\.md name: is required/],
      [{ 'x/SKILL.md': skillMd('name: Bad_Name\ndescription: d') }, 400, /^SKILL\.md name: must be lowercase letters/],
      [{ 'x/SKILL.md': skillMd('name: ok') }, 400, /^SKILL\.md description: is required/],
      [{ 'x/SKILL.md': skillMd(`name: ok\ndescription: ${'d'.repeat(2049)}`) }, 400, /^SKILL\.md description: must be at most 2048/],
      [{ 'x/SKILL.md': skillMd('name: ok\ndescription: [unclosed') }, 400, /^SKILL\.md: the front matter is not valid YAML/],
      [{ 'x/README.md': 'hello' }, 400, /^files: a SKILL\.md is required at the root of the skill's folder \("x\/SKILL\.md"\)/],
      [{ 'SKILL.md': skillMd('name: ok\ndescription: d') }, 400, /^files\[0\]: "SKILL\.md" is not inside a folder/],
      [{ 'x/SKILL.md': skillMd('name: ok\ndescription: d'), 'y/other.md': 'x' }, 400, /^files\[1\]: every file must be in the same top-level folder/],
      [{ 'x/SKILL.md': skillMd('name: ok\ndescription: d'), 'x/../../etc/passwd': 'x' }, 400, /^files\[1\]: .* has an empty, "\." or "\.\." segment/],
      [{ 'x/SKILL.md': skillMd('name: ok\ndescription: d'), 'x\\evil': 'x' }, 400, /^files\[1\]: .*backslash/],
    ];
    for (const [files, status, message] of cases) {
      const got = await refusal(client.beta.skills.create({ files: await filesOf(files) }));
      expect(got.status, JSON.stringify(files)).toBe(status);
      expect(got.message, JSON.stringify(files)).toMatch(message);
    }
    expect(await refusal(client.beta.skills.create({ files: [] }))).toMatchObject({ status: 400, message: expect.stringMatching(/^files: /) });
    expect(await refusal(client.beta.skills.create({ files: await folderFiles('release-notes'), display_name: 'two\nlines' }))).toMatchObject({ status: 400, message: 'display_name: must be a single line' });
    expect(await refusal(client.beta.skills.create({ files: await folderFiles('release-notes'), colour: 'red' } as never))).toMatchObject({ status: 400, message: 'colour: is not a field this request takes' });
    // Over the size limit: a 413 naming the files.
    const big = await toFile(Buffer.alloc(8 * 1024 * 1024 + 1), 'x/big.bin');
    expect(await refusal(client.beta.skills.create({ files: [...(await filesOf({ 'x/SKILL.md': skillMd('name: ok\ndescription: d') })), big] }))).toMatchObject({ status: 413, message: expect.stringMatching(/^files: /) });

    // A new version must keep the skill's name.
    const skill = valid(skillSchema, await client.beta.skills.create({ files: await folderFiles('release-notes') }));
    expect(await refusal(client.beta.skills.versions.create(skill.id, { files: await filesOf({ 'renamed/SKILL.md': skillMd('name: renamed\ndescription: d') }) }))).toMatchObject({
      status: 400,
      message: 'SKILL.md name: must stay "release-notes", the name this skill was created with (a skill\'s name never changes); got "renamed"',
    });
    expect((await refusal(client.beta.skills.versions.retrieve('123', { skill_id: skill.id }))).status).toBe(404);
    expect(valid(pageSchema(skillSchema), await client.beta.skills.list({ limit: 1000 })).data.length).toBe(before + 1);
  });

  /** What the model was sent in request `i`: its system prompt, the tools offered, and the tool results it read. */
  const sent = (i: number) => {
    const body = h.fake.requests[i]!.body as { system: unknown; tools?: { name: string }[]; messages: { content: unknown }[] };
    const results = body.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((b: { type?: string }) => b.type === 'tool_result') as { content: unknown; is_error?: boolean }[];
    return { system: JSON.stringify(body.system), tools: (body.tools ?? []).map((t) => t.name), results: results.map((r) => ({ text: JSON.stringify(r.content), is_error: r.is_error ?? false })) };
  };

  it("end to end in a chat: the model sees the skill's name and description, loads its SKILL.md on demand and runs its bundled script in the sandbox; someone else running the same agent file has no such skill", async () => {
    const aliceHeaders = await h.userHeaders('alice-e2e');
    const alice = new Anthropic({ apiKey: aliceHeaders.authorization!.slice('Bearer '.length), baseURL: h.url, maxRetries: 0 });
    valid(skillSchema, await alice.beta.skills.create({ files: await folderFiles('release-notes') }));
    // A Claude Code agent file that names the skill (`skills:`) and grants run_command.
    const dir = mkdtempSync(join(tmpdir(), 'zero-skills-agents-'));
    writeFileSync(join(dir, 'release-manager.md'), '---\nname: Release manager\ndescription: Writes release notes.\ntools: run_command\nskills: release-notes\n---\nYou write release notes.\n');
    await syncAgents(h.stack.store, dir);

    h.fake.script(
      { toolCalls: [{ id: 'toolu_load', name: 'read_skill', input: { skill: 'release-notes' } }] },
      { toolCalls: [{ id: 'toolu_ref', name: 'read_skill', input: { skill: 'release-notes', path: 'reference.md' } }, { id: 'toolu_run', name: 'run_command', input: { command: 'node scripts/tally.mjs', cwd: '.skills/release-notes' } }] },
      { text: 'Release notes written.' },
    );
    const { status, json } = await postJson(`${h.url}/api/v2/chat`, { agent_id: 'release-manager', message: 'Write the release notes for this week.' }, aliceHeaders);
    expect(status).toBe(200);
    expect(json.text).toBe('Release notes written.');

    // The prompt lists the skill by name and description; its instructions are not in it.
    const first = sent(0);
    expect(first.system).toContain('## Skills');
    expect(first.system).toContain('release-notes: Turns a list of merged changes into release notes grouped by kind.');
    expect(first.system).not.toContain('Write release notes in three groups');
    expect(first.tools).toEqual(expect.arrayContaining(['read_skill', 'run_command']));
    // Loaded on demand: the SKILL.md and its files; then a bundled file, and its script run in the sandbox.
    const loaded = sent(1).results[0]!;
    expect(loaded.is_error).toBe(false);
    expect(loaded.text).toContain('Write release notes in three groups');
    expect(loaded.text).toContain('scripts/tally.mjs');
    const [reference, run] = sent(2).results.slice(-2);
    expect(reference!.text).toContain('One line per change, in the imperative');
    expect(run, run!.text).toMatchObject({ is_error: false });
    expect(run!.text).toContain('exit code 0');
    expect(run!.text).toContain('TALLY-OK 2');

    // Mallory runs the same agent file: the skill is alice's, so she has none; read_skill is not offered.
    h.fake.reset();
    h.fake.script({ toolCalls: [{ id: 'toolu_try', name: 'read_skill', input: { skill: 'release-notes' } }] }, { text: 'No skill.' });
    const mallory = await postJson(`${h.url}/api/v2/chat`, { agent_id: 'release-manager', message: 'Write the release notes.' }, await h.userHeaders('mallory-e2e'));
    expect(mallory.status).toBe(200);
    const hers = sent(0);
    expect(hers.system).toContain('release-notes: the person who started this conversation has no skill of this name');
    expect(hers.system).not.toContain('Turns a list of merged changes');
    expect(hers.tools).not.toContain('read_skill');
    expect(sent(1).results[0]).toMatchObject({ is_error: true });
    expect(sent(1).results[0]!.text).not.toContain('Write release notes in three groups');
  });

  it("an agent made through the SDK lists a skill (pinned to its newest version), and a session of it loads the skill: Anthropic skills and someone else's are refused by field", async () => {
    const skill = valid(skillSchema, await client.beta.skills.create({ files: await folderFiles('release-notes') }));
    const agent = valid(agentSchema, await client.beta.agents.create({ name: 'Notes', model: 'claude-sonnet-4-6', skills: [{ type: 'custom', skill_id: skill.id }] }));
    expect(agent.skills).toEqual([{ type: 'custom', skill_id: skill.id, version: skill.latest_version_id }]);
    expect(valid(agentSchema, await client.beta.agents.retrieve(agent.id)).skills).toEqual(agent.skills);

    expect(await refusal(client.beta.agents.create({ name: 'X', model: 'claude-sonnet-4-6', skills: [{ type: 'anthropic', skill_id: 'xlsx' }] }))).toMatchObject({ status: 400, message: expect.stringMatching(/^skills\.0\.type: Zero publishes no Anthropic skills/) });
    expect(await refusal(client.beta.agents.create({ name: 'X', model: 'claude-sonnet-4-6', skills: [{ type: 'custom', skill_id: skill.id, version: '1' }] }))).toMatchObject({ status: 400, message: expect.stringMatching(/^skills\.0\.version: /) });
    const mallory = new Anthropic({ apiKey: await keyOf(h, 'mallory-sdk'), baseURL: h.url, maxRetries: 0 });
    expect(await refusal(mallory.beta.agents.create({ name: 'Thief', model: 'claude-sonnet-4-6', skills: [{ type: 'custom', skill_id: skill.id }] }))).toMatchObject({
      status: 400,
      message: `skills.0.skill_id: no skill "${skill.id}" among the agent owner's skills`,
    });

    const session = await client.beta.sessions.create({ agent: agent.id, environment_id: 'env_zero_lambda' });
    h.fake.script({ toolCalls: [{ id: 'toolu_sdk_load', name: 'read_skill', input: { skill: 'release-notes' } }] }, { text: 'Loaded the skill.' });
    const stream = await client.beta.sessions.events.stream(session.id);
    await client.beta.sessions.events.send(session.id, { events: [{ type: 'user.message', content: [{ type: 'text', text: 'Release notes, please' }] }] });
    const events: SessionEvent[] = [];
    for await (const e of stream) {
      const event = valid(sessionEventSchema, e);
      events.push(event);
      if (event.type === 'session.status_idle') break;
    }
    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(['agent.tool_use', 'agent.tool_result', 'agent.message']));
    expect(sent(0).system).toContain('release-notes: Turns a list of merged changes');
    expect(sent(0).tools).toContain('read_skill');
    expect(sent(1).results[0]!.text).toContain('Write release notes in three groups');
  });
});
