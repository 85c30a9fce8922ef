import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, DEV } from './support/harness';
import { toolContext } from './support/tool-context';

/** Every input the issue lists; each must be refused by every file tool before any S3 call. */
const HOSTILE_PATHS = [
  '../x',
  'a/../../x',
  '%2e%2e/x',
  '%252e%252e%252f',
  '..%2f',
  '..\\x',
  '/etc/passwd',
  'C:\\x',
  'C:/x',
  'a\u0000b',
  '\uff0e\uff0e/x',
  '%c0%ae%c0%ae/',
  '.',
  '',
  `${'a'.repeat(1100)}`,
  '../p10/secret',
];

describe('the project path sandbox', () => {
  let h: Harness;
  let s3Requests: string[];
  beforeAll(async () => {
    h = await startHarness();
    const { projects, artifacts } = h.server.runtime;
    await projects.putFiles('acme/p1', [
      { path: 'readme.md', body: Buffer.from('p1 readme\n') },
      { path: '.hidden', body: Buffer.from('hidden file\n') },
      { path: '..backup', body: Buffer.from('backup file\n') },
    ]);
    await projects.putFiles('acme/p10', [{ path: 'secret', body: Buffer.from('p10 secret\n') }]);
    // Keys written around the store: a listing must never hand them out as project paths.
    await artifacts.put('projects/acme/p1/files/%2e%2e/leak', 'smuggled');
    await artifacts.put('projects/acme/p1/files/..\\..\\p10\\secret', 'smuggled');
    await artifacts.put('projects/acme/p1/files/\uff0e\uff0e/leak', 'smuggled');
    await projects.touch('acme/p1');
    // The tools act for a session: this one's only member is the administrator, who may use every project.
    const now = new Date().toISOString();
    await h.server.runtime.sessions.createSession({ session_id: 'sandbox-session', title: 'sandbox', agent_id: 'zero', created_at: now, updated_at: now }, { user_id: 'dev' });
    s3Requests = [];
    artifacts.s3.middlewareStack.add(
      (next, context) => async (args) => {
        s3Requests.push(context.commandName ?? 'unknown');
        return next(args);
      },
      { step: 'initialize', name: 'countRequests' },
    );
  });
  afterAll(() => h.close());

  const context = () => toolContext(h.server.runtime, { sessionId: 'sandbox-session', projectId: 'acme/p1', tools: ['read_file', 'grep', 'glob', 'write_file'] });
  const run = (name: string, input: unknown) => h.server.runtime.tools.execute(name, input, context(), { timeoutMs: 10_000, maxOutputChars: 50_000 });

  const calls: [string, (path: string) => Record<string, unknown>][] = [
    ['read_file', (path) => ({ path })],
    ['grep', (path) => ({ pattern: 'secret', path })],
    ['glob', (path) => ({ pattern: '**', path })],
    ['write_file', (path) => ({ path: `reports/${path}`, content: 'x' })],
    ['write_file', (path) => ({ path, content: 'x' })],
  ];

  for (const [tool, input] of calls) {
    it(`${tool} refuses every hostile path before any S3 call (${JSON.stringify(input('…'))})`, async () => {
      for (const path of HOSTILE_PATHS) {
        s3Requests.length = 0;
        const result = await run(tool, input(path));
        expect({ path, is_error: result.is_error, s3: s3Requests }).toEqual({ path, is_error: true, s3: [] });
        expect(result.content).toMatch(/path|Invalid input/);
      }
    });
  }

  it('reads names that only look like traversal: .hidden and ..backup', async () => {
    expect(await run('read_file', { path: '.hidden' })).toMatchObject({ is_error: false, content: '1\thidden file' });
    expect(await run('read_file', { path: '..backup' })).toMatchObject({ is_error: false, content: '1\tbackup file' });
  });

  it('never lists keys outside the project or keys that fail the normaliser, and p1 does not see p10', async () => {
    const glob = await run('glob', { pattern: '**' });
    expect(glob).toMatchObject({ is_error: false, content: '3 files match "**":\n..backup\n.hidden\nreadme.md' });
    const grep = await run('grep', { pattern: 'secret|smuggled' });
    expect(grep.content).toMatch(/^No matches/);
    const files = await (await fetch(`${h.url}/api/v2/projects/acme/p1/files`, { headers: DEV })).json();
    expect(files.files.map((f: { path: string }) => f.path)).toEqual(['..backup', '.hidden', 'readme.md']);
  });

  it('names the field when a tool input is malformed', async () => {
    expect(await run('read_file', { path: 7 })).toMatchObject({ is_error: true, content: expect.stringContaining('path:') });
    expect(await run('grep', { pattern: '(unclosed' })).toMatchObject({ is_error: true, content: expect.stringContaining('pattern:') });
    expect(await run('glob', { pattern: '*', project_id: '../../etc' })).toMatchObject({ is_error: true, content: expect.stringContaining('project_id:') });
  });

  it('a pathological pattern cannot hang grep', async () => {
    await h.server.runtime.projects.putFiles('acme/redos', [{ path: 'evil.txt', body: Buffer.from(`${'a'.repeat(100_000)}!\n`) }]);
    const started = Date.now();
    const result = await run('grep', { pattern: '(a+)+$', project_id: 'acme/redos', output_mode: 'count' });
    // A backtracking engine needs ~2^100000 steps to give up on this line; RE2 answers in one pass.
    expect(result).toMatchObject({ is_error: false, content: expect.stringMatching(/^No matches/) });
    expect(await run('grep', { pattern: '(a+)+!', project_id: 'acme/redos', output_mode: 'count' })).toMatchObject({ content: 'evil.txt:1' });
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
