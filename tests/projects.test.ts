import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { tarGz } from './support/archive';
import { startHarness, type Harness, DEV } from './support/harness';
import { chatStream } from './support/sse';

const PROJECT = 'acme/shop';

const codeSecurity = {
  summary: { total: 3 },
  findings: {
    vulnerabilities: [
      { id: 'CVE-1', package: 'lodash', severity: 'critical' },
      { id: 'CVE-2', package: 'minimist', severity: 'low' },
      { id: 'CVE-3', package: 'express', severity: 'high' },
    ],
  },
};

async function upload(url: string, project: string, archive: Buffer, query = '') {
  const response = await fetch(`${url}/api/v2/projects/${project}/archive${query}`, {
    method: 'POST',
    headers: { 'content-type': 'application/gzip', ...DEV },
    body: new Uint8Array(archive),
  });
  return { status: response.status, json: (await response.json()) as any };
}

/** The tool results the model received in request `index`, by tool_use id: exactly what the model saw. */
function resultsSeen(h: Harness, index: number): Record<string, { content: string; is_error: boolean }> {
  const last = h.fake.requests[index]!.body.messages.at(-1)!.content as { type: string; tool_use_id: string; content: string; is_error?: boolean }[];
  return Object.fromEntries(last.filter((b) => b.type === 'tool_result').map((b) => [b.tool_use_id, { content: b.content, is_error: !!b.is_error }]));
}

describe('projects in S3', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
    const archive = await tarGz([
      { name: 'shop-1a2b/package.json', body: JSON.stringify({ name: 'shop', dependencies: { lodash: '4.17.20' } }, null, 2) },
      { name: 'shop-1a2b/src/index.ts', body: "import _ from 'lodash';\nexport const total = (xs: number[]) => _.sum(xs);\n" },
      { name: 'shop-1a2b/src/util/math.ts', body: 'export const add = (a: number, b: number) => a + b;\n' },
      { name: 'shop-1a2b/.env.example', body: 'API_URL=\n' },
      { name: 'shop-1a2b/logo.png', body: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 1]) },
      { name: 'shop-1a2b/docs', type: 'directory' },
      { name: 'shop-1a2b/docs/link', type: 'symlink', linkname: '../../../etc/passwd' },
    ]);
    const { status, json } = await upload(h.url, PROJECT, archive, '?strip=1');
    expect(status).toBe(201);
    expect(json).toMatchObject({ files: 5, skipped: [{ path: 'docs/link' }] });
    const put = await fetch(`${h.url}/api/v2/projects/${PROJECT}/analysis/code-security`, { method: 'PUT', headers: DEV, body: JSON.stringify(codeSecurity) });
    expect(put.status).toBe(201);
  });
  afterAll(() => h.close());
  afterEach(() => h.fake.reset());

  it('lists projects, files and analyses through the API', async () => {
    const projects = await (await fetch(`${h.url}/api/v2/projects`, { headers: DEV })).json();
    expect(projects.projects).toContainEqual(expect.objectContaining({ id: PROJECT, analyses: ['code-security'], last_upload: expect.objectContaining({ files: 5 }) }));
    const files = await (await fetch(`${h.url}/api/v2/projects/${PROJECT}/files`, { headers: DEV })).json();
    expect(files.files.map((f: { path: string }) => f.path)).toEqual(['.env.example', 'logo.png', 'package.json', 'src/index.ts', 'src/util/math.ts']);
    const under = await (await fetch(`${h.url}/api/v2/projects/${PROJECT}/files?under=src/util`, { headers: DEV })).json();
    expect(under.files.map((f: { path: string }) => f.path)).toEqual(['src/util/math.ts']);
    const source = await fetch(`${h.url}/api/v2/projects/${PROJECT}/files/src/index.ts`, { headers: DEV });
    expect(source.status).toBe(200);
    expect(await source.text()).toContain("import _ from 'lodash'");
    const analysis = await (await fetch(`${h.url}/api/v2/projects/${PROJECT}/analysis/code-security`, { headers: DEV })).json();
    expect(analysis).toEqual(codeSecurity);
  });

  it('uploads one file, and answers 4xx for bad project ids, paths and bodies', async () => {
    const put = await fetch(`${h.url}/api/v2/projects/${PROJECT}/files/docs/README.md`, { method: 'PUT', headers: DEV, body: '# Shop\n' });
    expect(put.status).toBe(201);
    expect(await (await fetch(`${h.url}/api/v2/projects/${PROJECT}/files/docs/README.md`, { headers: DEV })).text()).toBe('# Shop\n');

    const cases: [string, RequestInit, number, string][] = [
      [`/projects/acme/sh%20op/files`, {}, 400, 'project_id'],
      [`/projects/${PROJECT}/files/%252e%252e%252fsecret`, {}, 400, 'path'],
      [`/projects/${PROJECT}/files/a%00b`, {}, 400, 'path'],
      [`/projects/${PROJECT}/files/%2e%2e%2fx`, { method: 'PUT', body: 'x' }, 400, 'path'],
      [`/projects/${PROJECT}/files/..%5cx`, {}, 400, 'path'],
      [`/projects/${PROJECT}/files?under=../other`, {}, 400, 'under'],
      [`/projects/${PROJECT}/files/missing.txt`, {}, 404, 'path'],
      [`/projects/${PROJECT}/analysis/Not_A_Scanner`, {}, 400, 'scanner'],
      [`/projects/${PROJECT}/analysis/devops`, {}, 404, 'scanner'],
      [`/projects/${PROJECT}/analysis/devops`, { method: 'PUT', body: '{oops' }, 400, 'body'],
      [`/projects/${PROJECT}/archive`, { method: 'POST', body: 'not gzip' }, 400, 'archive'],
      [`/projects/nobody/nothing/files`, {}, 404, 'project_id'],
    ];
    for (const [path, init, status, field] of cases) {
      const response = await fetch(`${h.url}/api/v2${path}`, { ...init, headers: DEV });
      const body = await response.json();
      expect({ path, status: response.status, field: body.error?.field }).toEqual({ path, status, field });
    }
  });

  it('refuses archives with traversal entries, too many files or too many bytes, and writes nothing', async () => {
    for (const name of ['../escape.txt', 'a/../../escape.txt', '/etc/passwd', 'a\\..\\b', 'ok/%2e%2e/x', `${'d/'.repeat(300)}x`]) {
      const { status, json } = await upload(h.url, 'acme/evil', await tarGz([{ name: 'fine.txt', body: 'x' }, { name, body: 'owned' }]));
      expect({ name, status, field: json.error.field }).toEqual({ name, status: 400, field: 'archive' });
    }
    const many = await upload(h.url, 'acme/evil', await tarGz(Array.from({ length: 10_001 }, (_, i) => ({ name: `f${i}`, body: '' }))));
    expect(many.status).toBe(413);
    const huge = await upload(h.url, 'acme/evil', await tarGz([{ name: 'big.bin', body: Buffer.alloc(100 * 1024 * 1024 + 1) }]));
    expect(huge.status).toBe(413);
    const listing = await fetch(`${h.url}/api/v2/projects/acme/evil/files`, { headers: DEV });
    expect(listing.status).toBe(404);
  });

  it('a scripted run reads, greps and globs the uploaded project and writes a report visible through the API', async () => {
    h.fake.script(
      {
        toolCalls: [
          { id: 'toolu_glob', name: 'glob', input: { pattern: '**/*.ts' } },
          { id: 'toolu_grep', name: 'grep', input: { pattern: 'LODASH', case_insensitive: true, output_mode: 'content' } },
          { id: 'toolu_read', name: 'read_file', input: { path: 'package.json' } },
          { id: 'toolu_vulns', name: 'get_analysis', input: { scanner: 'code-security', section: 'findings.vulnerabilities', min_severity: 'high' } },
        ],
      },
      { toolCalls: [{ id: 'toolu_write', name: 'write_file', input: { path: 'reports/audit.md', content: '# Audit\n\nlodash 4.17.20 is vulnerable.\n' } }] },
      { text: 'The audit is in reports/audit.md.' },
    );
    const { events } = await chatStream(h.url, { agent_id: 'investigator', project_id: PROJECT, message: 'Audit the dependencies.' });
    const byId = { ...resultsSeen(h, 1), ...resultsSeen(h, 2) };
    expect(byId.toolu_glob).toMatchObject({ is_error: false, content: '2 files match "**/*.ts":\nsrc/index.ts\nsrc/util/math.ts' });
    expect(byId.toolu_grep!.content).toBe(
      'package.json:4:    "lodash": "4.17.20"\nsrc/index.ts:1:import _ from \'lodash\';',
    );
    expect(byId.toolu_read!.content).toContain('1\t{\n2\t  "name": "shop",');
    expect(byId.toolu_vulns!.content).toContain('2 of 3 items at severity high or above');
    expect(byId.toolu_vulns!.content).not.toContain('minimist');
    expect(byId.toolu_write).toMatchObject({ is_error: false, content: `Wrote 39 bytes to reports/audit.md in project ${PROJECT}.` });
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'completed' });

    const reports = await (await fetch(`${h.url}/api/v2/projects/${PROJECT}/reports`, { headers: DEV })).json();
    expect(reports.reports.map((r: { path: string }) => r.path)).toEqual(['audit.md']);
    expect(await (await fetch(`${h.url}/api/v2/projects/${PROJECT}/reports/audit.md`, { headers: DEV })).text()).toContain('lodash 4.17.20 is vulnerable');
    const sessionId = (events[0] as { session_id: string }).session_id;
    const session = await (await fetch(`${h.url}/api/v2/sessions/${sessionId}`, { headers: DEV })).json();
    expect(session.artifacts).toEqual([
      expect.objectContaining({ path: 'reports/audit.md', project_id: PROJECT, key: `projects/${PROJECT}/reports/audit.md`, bytes: 39 }),
    ]);
  });

  it('read_file pages through lines, refuses binary files and reports missing ones', async () => {
    h.fake.script(
      {
        toolCalls: [
          { id: 'toolu_page', name: 'read_file', input: { path: 'package.json', offset: 2, limit: 2 } },
          { id: 'toolu_bin', name: 'read_file', input: { path: 'logo.png' } },
          { id: 'toolu_none', name: 'read_file', input: { path: 'nope.txt' } },
          { id: 'toolu_hidden', name: 'read_file', input: { path: '.env.example' } },
          { id: 'toolu_count', name: 'grep', input: { pattern: 'export', output_mode: 'count', glob: '*.ts' } },
          { id: 'toolu_noproj', name: 'glob', input: { pattern: '*', project_id: 'acme/missing' } },
        ],
      },
      { text: 'ok' },
    );
    const { events } = await chatStream(h.url, { agent_id: 'investigator', project_id: PROJECT, message: 'Look.' });
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'completed' });
    const byId = resultsSeen(h, 1);
    expect(byId.toolu_page!.content).toBe('2\t  "name": "shop",\n3\t  "dependencies": {\n[showing lines 2-3 of 6; pass offset 4 to read on]');
    expect(byId.toolu_bin).toMatchObject({ is_error: true, content: expect.stringContaining('binary file') });
    expect(byId.toolu_none).toMatchObject({ is_error: true, content: expect.stringContaining('No file "nope.txt"') });
    expect(byId.toolu_hidden).toMatchObject({ is_error: false, content: '1\tAPI_URL=' });
    expect(byId.toolu_count).toMatchObject({ is_error: false, content: 'src/index.ts:1\nsrc/util/math.ts:1' });
    expect(byId.toolu_noproj).toMatchObject({ is_error: true, content: 'project "acme/missing" does not exist' });
  });
});
