import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ToolRegistry } from '@zero/agent/tools/registry';
import { editFileTool } from '@zero/runtime/tools/edit-file';
import type { RunningServer } from '../local/server';
import { DEV, getJson, postJson, send, startHarness, startSecondInstance, type Harness } from './support/harness';
import { toolContext } from './support/tool-context';
import { modelCalls, resultSeenByModel } from './support/tool-calls';

const PROJECT = 'acme/files';
const SOURCE = 'export const greeting = "hello";\nexport const farewell = "bye";\n';

describe('file operations: edit_file, delete_path, list_files, diff_files', () => {
  let h: Harness;
  /** An instance on the same stores whose deployment allows delete_path: only the deployment can let it run without asking. */
  let deleting: RunningServer;
  const reportText = async (path: string) => h.server.runtime.artifacts.getText(`projects/${PROJECT}/reports/${path}`);
  const sourceText = async () => new TextDecoder().decode((await h.server.runtime.projects.read(PROJECT, 'files', 'src/greet.ts'))!.body);

  beforeAll(async () => {
    h = await startHarness();
    await h.server.runtime.projects.putFiles(PROJECT, [
      { path: 'src/greet.ts', body: Buffer.from(SOURCE) },
      { path: 'src/greet-v2.ts', body: Buffer.from(SOURCE.replace('hello', 'hi')) },
      { path: 'src/lib/deep.ts', body: Buffer.from('x'.repeat(120)) },
      { path: 'logo.png', body: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]) },
      { path: 'readme.md', body: Buffer.from('# files\n') },
    ]);
    deleting = await startSecondInstance(h, { permissions: { side_effects: 'allow', rules: { delete_path: 'allow' } } });
  });
  afterAll(async () => {
    await deleting.close();
    await h.close();
  });
  afterEach(() => h.fake.reset());

  /** A new session of the commander agent on the project, with a report it wrote. */
  async function sessionWithReport(name: string, text: string) {
    const { json } = await postJson(`${h.url}/api/v2/sessions`, { agent_id: 'commander', project_id: PROJECT });
    const sessionId = json.session.session_id as string;
    const written = await modelCalls(h, 'write_file', { path: `reports/${name}`, content: text }, { session_id: sessionId });
    expect(written.result).toMatchObject({ content: `Wrote ${Buffer.byteLength(text)} bytes to reports/${name} in project ${PROJECT}.` });
    return sessionId;
  }

  describe('edit_file', () => {
    it('replaces one exact occurrence, and every one with replace_all', async () => {
      const session = await sessionWithReport('edit-me.md', '# Audit\nStatus: draft\nOwner: TBD\nReviewer: TBD\n');
      const once = await modelCalls(h, 'edit_file', { path: 'reports/edit-me.md', old_string: 'Status: draft', new_string: 'Status: final' }, { session_id: session });
      expect(once.result).toMatchObject({ content: `Replaced 1 occurrence; wrote 47 bytes to reports/edit-me.md in project ${PROJECT}.` });
      const all = await modelCalls(h, 'edit_file', { path: 'reports/edit-me.md', old_string: 'TBD', new_string: 'Ada', replace_all: true }, { session_id: session });
      expect(all.result?.content).toMatch(/^Replaced 2 occurrences/);
      expect(await reportText('edit-me.md')).toBe('# Audit\nStatus: final\nOwner: Ada\nReviewer: Ada\n');
      // The session's record of the file follows its size.
      const { json } = await getJson(`${h.url}/api/v2/sessions/${session}`);
      expect(json.artifacts.find((a: { path: string }) => a.path === 'reports/edit-me.md')).toMatchObject({ bytes: 47 });
    });

    it('edits an artifact of the session', async () => {
      const { sessionId } = await modelCalls(h, 'write_file', { path: 'artifacts/notes.txt', content: 'one two three' }, { agent_id: 'commander', project_id: PROJECT });
      const edited = await modelCalls(h, 'edit_file', { path: 'artifacts/notes.txt', old_string: 'two', new_string: '2' }, { session_id: sessionId });
      expect(edited.result?.is_error).toBeFalsy();
      expect(await h.server.runtime.artifacts.getText(`sessions/${sessionId}/artifacts/notes.txt`)).toBe('one 2 three');
    });

    const refusals: [string, Record<string, unknown>, RegExp][] = [
      ['a missing old string', { path: 'reports/keep.md', old_string: 'absent', new_string: 'x' }, /^old_string was not found in reports\/keep-\d+\.md; nothing was changed/],
      ['a string that is not unique', { path: 'reports/keep.md', old_string: 'line', new_string: 'row' }, /^old_string appears 2 times in reports\/keep-\d+\.md; nothing was changed/],
      ['no change', { path: 'reports/keep.md', old_string: 'line', new_string: 'line' }, /^old_string and new_string are the same/],
      ['a file that does not exist', { path: 'reports/nope.md', old_string: 'a', new_string: 'b' }, /^No file "reports\/nope\.md" to edit/],
      ['a project source file', { path: 'src/greet.ts', old_string: 'hello', new_string: 'pwned' }, /^path refused: edit_file works only on files under "reports\/" or "artifacts\/"/],
      ['traversal out of reports/', { path: 'reports/../src/greet.ts', old_string: 'hello', new_string: 'pwned' }, /^path refused: the path contains a "\." or "\.\." segment/],
      ['an encoded traversal', { path: 'reports/%2e%2e/src/greet.ts', old_string: 'hello', new_string: 'pwned' }, /^path refused: the path contains a percent escape/],
      ['a bad field', { path: 'reports/keep.md', old_string: 7, new_string: 'x' }, /^Invalid input for edit_file: old_string:/],
    ];
    let kept = 0;
    it.each(refusals)('refuses %s and changes nothing', async (_what, input, why) => {
      // Each case in its own session, with its own report (a report belongs to the session that wrote it).
      const name = `keep-${++kept}.md`;
      const session = await sessionWithReport(name, 'a line\nanother line\n');
      const { result } = await modelCalls(h, 'edit_file', { ...input, path: String(input.path).replace('keep.md', name) }, { session_id: session });
      expect(result).toMatchObject({ is_error: true, content: expect.stringMatching(why) });
      expect(await reportText(name)).toBe('a line\nanother line\n');
      expect(await sourceText()).toBe(SOURCE);
    });

    it("refuses another conversation's report and leaves it as it was", async () => {
      await sessionWithReport('theirs.md', 'their words\n');
      const { sessionId } = await modelCalls(h, 'list_files', {}, { agent_id: 'commander', project_id: PROJECT });
      const { result } = await modelCalls(h, 'edit_file', { path: 'reports/theirs.md', old_string: 'their', new_string: 'my' }, { session_id: sessionId });
      expect(result).toMatchObject({ is_error: true, content: expect.stringContaining('belongs to another conversation') });
      expect(await reportText('theirs.md')).toBe('their words\n');
    });

    it('is a tool with side effects: a deployment whose default for them is ask asks before it edits', async () => {
      const registry = new ToolRegistry([editFileTool], { permissions: { side_effects: 'ask' } });
      const session = await sessionWithReport('asked.md', 'draft\n');
      const context = toolContext(h.server.runtime, { sessionId: session, projectId: PROJECT, tools: ['edit_file'] });
      const result = await registry.execute('edit_file', { path: 'reports/asked.md', old_string: 'draft', new_string: 'final' }, context, { timeoutMs: 10_000, maxOutputChars: 10_000 });
      expect(result).toMatchObject({ is_error: true, content: expect.stringContaining('asks a person to approve it first (the deployment default for tools with side effects)') });
      expect(await reportText('asked.md')).toBe('draft\n');
    });
  });

  describe('delete_path', () => {
    it('asks a person by default; the file stays until someone approves, then it is gone', async () => {
      const session = await sessionWithReport('doomed.md', 'bye\n');
      const { id, events } = await modelCalls(h, 'delete_path', { path: 'reports/doomed.md' }, { session_id: session });
      expect(events.find((e) => e.type === 'confirmation_required')).toMatchObject({ name: 'delete_path', input: { path: 'reports/doomed.md' }, policy: 'delete_path asks a person before it deletes a file' });
      expect(await reportText('doomed.md')).toBe('bye\n');

      expect((await send(h, 'POST', `/sessions/${session}/approvals/${id}`, DEV, { decision: 'allow' })).status).toBe(200);
      for (let i = 0; i < 200 && (await getJson(`${h.url}/api/v2/sessions/${session}`)).json.history.at(-1).kind !== 'run_end'; i++) await new Promise((r) => setTimeout(r, 50));
      expect(resultSeenByModel(h, id)).toMatchObject({ content: `Deleted reports/doomed.md in project ${PROJECT}.` });
      expect(await reportText('doomed.md')).toBeUndefined();
      const { json } = await getJson(`${h.url}/api/v2/sessions/${session}`);
      expect(json.artifacts.map((a: { path: string }) => a.path)).not.toContain('reports/doomed.md');
    });

    it('a denial deletes nothing', async () => {
      const session = await sessionWithReport('spared.md', 'still here\n');
      const { id } = await modelCalls(h, 'delete_path', { path: 'reports/spared.md' }, { session_id: session });
      expect((await send(h, 'POST', `/sessions/${session}/approvals/${id}`, DEV, { decision: 'deny' })).status).toBe(200);
      for (let i = 0; i < 200 && (await getJson(`${h.url}/api/v2/sessions/${session}`)).json.history.at(-1).kind !== 'run_end'; i++) await new Promise((r) => setTimeout(r, 50));
      expect(await reportText('spared.md')).toBe('still here\n');
    });

    const refusals: [string, string, RegExp][] = [
      ['a project source file', 'src/greet.ts', /^path refused: delete_path works only on files under "reports\/" or "artifacts\/"/],
      ['the reports folder itself', 'reports', /^path refused: delete_path works only on files/],
      ['traversal', 'reports/../../files/src/greet.ts', /^path refused/],
      ['an absolute path', '/reports/keep.md', /^path refused: the path is absolute/],
      ['a file that does not exist', 'reports/never.md', /^No file "reports\/never\.md" to delete/],
    ];
    let kept = 0;
    it.each(refusals)('refuses %s, even where the deployment allows it, and deletes nothing', async (_what, path, why) => {
      const name = `keep-too-${++kept}.md`;
      const session = await sessionWithReport(name, 'kept\n');
      const { result } = await modelCalls({ ...h, url: deleting.url }, 'delete_path', { path }, { session_id: session });
      expect(result).toMatchObject({ is_error: true, content: expect.stringMatching(why) });
      expect(await reportText(name)).toBe('kept\n');
      expect(await sourceText()).toBe(SOURCE);
    });

    it('deletes at once where the deployment allows it; a session owner cannot lift its ask', async () => {
      const asking = await sessionWithReport('still.md', 'x\n');
      expect((await send(h, 'PUT', `/sessions/${asking}/permissions`, DEV, { permissions: { 'delete_path(reports/**)': 'allow' } })).status).toBe(200);
      const asked = await modelCalls(h, 'delete_path', { path: 'reports/still.md' }, { session_id: asking });
      expect(asked.events.find((e) => e.type === 'confirmation_required')).toMatchObject({ name: 'delete_path', policy: 'delete_path asks a person before it deletes a file' });
      expect(await reportText('still.md')).toBe('x\n');
      h.fake.reset();

      const session = await sessionWithReport('gone.md', 'x\n');
      const { result } = await modelCalls({ ...h, url: deleting.url }, 'delete_path', { path: 'reports/gone.md' }, { session_id: session });
      expect(result).toMatchObject({ content: `Deleted reports/gone.md in project ${PROJECT}.` });
      expect(await reportText('gone.md')).toBeUndefined();
    });
  });

  describe('list_files', () => {
    const chat = { agent_id: 'commander', project_id: PROJECT };
    it('lists a folder with sizes and its sub-folders with totals', async () => {
      expect((await modelCalls(h, 'list_files', {}, chat)).result?.content).toBe(
        [`(project root) in ${PROJECT}: 1 folder, 2 files; 5 files and ${2 * SOURCE.length + 120 - 3 + 7 + 8} bytes in all`, `src/\t3 files, ${2 * SOURCE.length - 3 + 120} bytes`, 'logo.png\t7 bytes', 'readme.md\t8 bytes'].join('\n'),
      );
      expect((await modelCalls(h, 'list_files', { path: 'src' }, chat)).result?.content).toBe(
        [`src in ${PROJECT}: 1 folder, 2 files; 3 files and ${2 * SOURCE.length - 3 + 120} bytes in all`, 'lib/\t1 file, 120 bytes', `greet-v2.ts\t${SOURCE.length - 3} bytes`, `greet.ts\t${SOURCE.length} bytes`].join('\n'),
      );
    });

    it('lists what the conversation saved', async () => {
      const session = await sessionWithReport('listed.md', 'twelve bytes');
      expect((await modelCalls(h, 'list_files', { area: 'written' }, { session_id: session })).result?.content).toBe(`reports/listed.md\t12 bytes\t(project ${PROJECT})`);
    });

    it.each(['../', '/etc', 'src/../..', 'src\\lib'])('refuses the folder %j', async (path) => {
      expect((await modelCalls(h, 'list_files', { path }, chat)).result).toMatchObject({ is_error: true, content: expect.stringMatching(/^path refused/) });
    });
  });

  describe('diff_files', () => {
    const chat = { agent_id: 'commander', project_id: PROJECT };
    it('diffs two project files', async () => {
      const { result } = await modelCalls(h, 'diff_files', { path: 'src/greet.ts', other_path: 'src/greet-v2.ts' }, chat);
      expect(result?.content).toBe(
        [
          '===================================================================',
          '--- src/greet.ts',
          '+++ src/greet-v2.ts',
          '@@ -1,2 +1,2 @@',
          '-export const greeting = "hello";',
          '+export const greeting = "hi";',
          ' export const farewell = "bye";',
          '',
        ].join('\n'),
      );
    });

    it('diffs a file against proposed content, and a saved file', async () => {
      const proposed = await modelCalls(h, 'diff_files', { path: 'src/greet.ts', content: SOURCE.replace('bye', 'ciao'), context_lines: 0 }, chat);
      expect(proposed.result?.content).toContain('+++ src/greet.ts (proposed)\n@@ -2,1 +2,1 @@\n-export const farewell = "bye";\n+export const farewell = "ciao";');
      const session = await sessionWithReport('diffed.md', 'alpha\n');
      const saved = await modelCalls(h, 'diff_files', { path: 'reports/diffed.md', area: 'written', content: 'beta\n' }, { session_id: session });
      expect(saved.result?.content).toContain('-alpha\n+beta');
      expect((await modelCalls(h, 'diff_files', { path: 'readme.md', content: '# files\n' }, chat)).result?.content).toBe('No differences: readme.md and readme.md (proposed) are identical.');
    });

    it('diffs two files the conversation saved in a session without a project', async () => {
      const { sessionId } = await modelCalls(h, 'write_file', { path: 'artifacts/draft.md', content: 'one\ntwo\n' }, { agent_id: 'commander' });
      await modelCalls(h, 'write_file', { path: 'artifacts/final.md', content: 'one\n2\n' }, { session_id: sessionId });
      const both = await modelCalls(h, 'diff_files', { path: 'artifacts/draft.md', area: 'written', other_path: 'artifacts/final.md', other_area: 'written' }, { session_id: sessionId });
      expect(both.result?.is_error).toBeFalsy();
      expect(both.result?.content).toContain('-two\n+2');
      const proposed = await modelCalls(h, 'diff_files', { path: 'artifacts/final.md', area: 'written', content: 'one\n3\n' }, { session_id: sessionId });
      expect(proposed.result?.content).toContain('-2\n+3');
      // A project file still needs a project.
      const project = await modelCalls(h, 'diff_files', { path: 'readme.md', content: 'x' }, { session_id: sessionId });
      expect(project.result).toMatchObject({ is_error: true, content: expect.stringMatching(/^No project is selected/) });
    });

    const refusals: [string, Record<string, unknown>, RegExp][] = [
      ['neither other side', { path: 'readme.md' }, /^Invalid input for diff_files: other_path: give exactly one of other_path and content/],
      ['both other sides', { path: 'readme.md', other_path: 'src/greet.ts', content: 'x' }, /give exactly one of other_path and content/],
      ['a binary file', { path: 'logo.png', content: 'x' }, /^"logo\.png" is a binary file/],
      ['a missing file', { path: 'nope.ts', content: 'x' }, /^No file "nope\.ts" in project/],
      ['traversal', { path: '../other/secret', content: 'x' }, /^path refused/],
      ['an absolute other path', { path: 'readme.md', other_path: '/etc/passwd' }, /^path refused: the path is absolute/],
      ['a file another conversation saved', { path: 'reports/listed.md', area: 'written', content: 'x' }, /^No file "reports\/listed\.md" was saved by this conversation/],
    ];
    it.each(refusals)('refuses %s', async (_what, input, why) => {
      const { result } = await modelCalls(h, 'diff_files', input, chat);
      expect(result).toMatchObject({ is_error: true, content: expect.stringMatching(why) });
      expect(result!.content).not.toContain('root:');
    });
  });
});
