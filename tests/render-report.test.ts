import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { InProcessQueue } from '@zero/runtime/sessions/queue';
import { createS3Client } from '@zero/runtime/store/clients';
import { signSha256 } from '@zero/integrations/webhooks/signature';
import { bundleFunction } from '../bench/bundle-function';
import { tarGz } from './support/archive';
import { DEV, getJson, startHarness, type Harness } from './support/harness';
import { readPdf, renderPdfPage } from './support/pdf-reader';
import { chatStream } from './support/sse';

const run = promisify(execFile);
const root = join(import.meta.dirname, '..');
const PROJECT = 'acme/reports';

/** An agent that may render reports without asking (the default for a tool with side effects is the deployment's). */
const REPORTER = `---
name: reporter
description: Writes PDF reports.
tools: render_report, read_file
model: claude-test-model
permissions:
  render_report: allow
---

You write reports.
`;

/** The same tool with no rule of its own: the deployment default decides. */
const PLAIN_REPORTER = `---
name: plain-reporter
description: Writes PDF reports under the deployment's defaults.
tools: render_report, write_file
model: claude-test-model
---

You write reports.
`;

/** A report with every element render_report supports, and text beyond WinAnsi. */
const SAMPLE = `# Dependency audit — acme/shop

This report covers **3 vulnerable packages**, *two of them reachable*, and the \`lodash\` upgrade path → 4.17.21.
Café, naïve, “quotes”, Ελληνικά, Кириллица.

## Findings

1. **lodash** 4.17.20 — prototype pollution ([CVE-2021-23337](https://nvd.nist.gov/vuln/detail/CVE-2021-23337))
   - reached from \`src/index.ts\`
     - nested third level: a long line of text that has to wrap onto a second line to show the hanging indent
2. *minimist* 1.2.5 — low severity
3. ~~express~~ no longer used

- [x] upgrade lodash
- [ ] remove express

| Package | Version | Severity |
|:--------|--------:|:--------:|
| lodash | 4.17.20 | **critical** |
| minimist | 1.2.5 | low |

\`\`\`ts
import _ from 'lodash';
export const total = (xs: number[]) => _.sum(xs); // a long comment that must wrap inside the shaded block, it is wider than the page
\`\`\`

> Upgrading is a one-line change.

---

### Next steps

Read the [advisory](https://github.com/advisories/GHSA-35jh-r3h4-6jhm).<br>Then upgrade.
`;

const HTML = `<html><head><title>ignored</title><style>p { color: red }</style><script>alert("script text")</script></head><body>
<h1>HTML report &amp; more</h1>
<p>Text with <b>bold</b>, <i>italic</i>, <code>code()</code> and a <a href="https://example.com/x">link</a>; a <a href="javascript:alert(1)">script link</a>.<br>Second line.</p>
<ul><li>one<ul><li>nested <strong>two</strong></li></ul></li><li>three</li></ul>
<table><thead><tr><th>Name</th><th align="right">Count</th></tr></thead><tbody><tr><td>alpha</td><td align="right">1</td></tr></tbody></table>
<pre>  indented
    code</pre>
<blockquote><p>quoted</p></blockquote><hr>
<div>a div <img src="http://169.254.169.254/latest" alt="diagram"> after</div>
</body></html>`;

describe('render_report', () => {
  let h: Harness;
  let s3: S3Client;
  let dir: string;

  beforeAll(async () => {
    h = await startHarness();
    s3 = createS3Client(h.stack.store);
    dir = await mkdtemp(join(tmpdir(), 'zero-render-report-'));
    for (const [id, body] of [['reporter', REPORTER], ['plain-reporter', PLAIN_REPORTER]]) {
      await s3.send(new PutObjectCommand({ Bucket: h.stack.store.bucket, Key: `agents/${id}.md`, Body: body, ContentType: 'text/markdown' }));
    }
    const upload = await fetch(`${h.url}/api/v2/projects/${PROJECT}/archive`, {
      method: 'POST',
      headers: { 'content-type': 'application/gzip', ...DEV },
      body: new Uint8Array(await tarGz([{ name: 'README.md', body: '# Reports\n' }])),
    });
    expect(upload.status).toBe(201);
  });
  afterAll(async () => {
    s3.destroy();
    await h.close();
    await rm(dir, { recursive: true, force: true });
  });
  afterEach(() => h.fake.reset());

  /** The model calls render_report once per input, in one step; returns the session and each result as the model saw it. */
  async function renderCalls(inputs: unknown[], agent = 'reporter') {
    h.fake.script({ toolCalls: inputs.map((input, i) => ({ id: `toolu_r${i}`, name: 'render_report', input })) }, { text: 'Done.' });
    const { events } = await chatStream(h.url, { agent_id: agent, project_id: PROJECT, message: 'Write the report.' });
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'completed' });
    const sessionId = (events[0] as { session_id: string }).session_id;
    const blocks = h.fake.requests.at(-1)!.body.messages.at(-1)!.content as { type: string; tool_use_id: string; content: string; is_error?: boolean }[];
    const results = inputs.map((_, i) => blocks.find((b) => b.type === 'tool_result' && b.tool_use_id === `toolu_r${i}`)!);
    return { sessionId, results };
  }

  const listed = async (prefix: string) => (await h.server.runtime.artifacts.list(prefix)).map((o) => o.key);

  it('renders a report with every element into reports/: the PDF is served by the API, its text reads in order and its pages convert', async () => {
    const { sessionId, results } = await renderCalls([{ path: 'reports/audit.pdf', content: SAMPLE, title: 'Dependency audit' }]);
    expect(results[0]!.is_error).toBeFalsy();
    const result = JSON.parse(results[0]!.content);
    expect(result).toEqual({ path: 'reports/audit.pdf', project_id: PROJECT, pages: 1, bytes: expect.any(Number) });

    const response = await fetch(`${h.url}/api/v2/projects/${PROJECT}/reports/audit.pdf`, { headers: DEV });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/pdf');
    const pdf = new Uint8Array(await response.arrayBuffer());
    expect(pdf.byteLength).toBe(result.bytes);
    expect(Buffer.from(pdf.subarray(0, 5)).toString()).toBe('%PDF-');

    // What a reader sees: every element's text, in order, the characters beyond WinAnsi intact.
    const facts = await readPdf(pdf);
    const text = facts.text;
    const inOrder = [
      'Dependency audit — acme/shop',
      'This report covers 3 vulnerable packages, two of them reachable, and the lodash upgrade path → 4.17.21.',
      'Café, naïve, “quotes”, Ελληνικά, Кириллица.',
      'Findings',
      '1. lodash 4.17.20 — prototype pollution (CVE-2021-23337)',
      'reached from src/index.ts',
      'nested third level',
      '2. minimist 1.2.5 — low severity',
      '3. express no longer used',
      '☑ upgrade lodash',
      '☐ remove express',
      'Package',
      'critical',
      "import _ from 'lodash';",
      'export const total = (xs: number[]) => _.sum(xs);',
      'Upgrading is a one-line change.',
      'Next steps',
      'Read the advisory.',
      'Then upgrade.',
    ];
    // Lines wrap where the page ends them: compared with white space folded.
    const flat = text.replace(/\s+/g, ' ');
    let at = 0;
    for (const piece of inOrder) {
      const found = flat.indexOf(piece, at);
      expect(found, `"${piece}" after offset ${at} in:\n${text}`).toBeGreaterThanOrEqual(0);
      at = found + piece.length;
    }
    // The hard break is a line break; the soft one inside the first paragraph is not.
    expect(text).toMatch(/Read the advisory\.\nThen upgrade\./);

    // Links are clickable: link annotations with their targets.
    const raw = Buffer.from(pdf).toString('latin1');
    expect(raw).toContain('/URI (https://nvd.nist.gov/vuln/detail/CVE-2021-23337)');
    expect(raw).toContain('/URI (https://github.com/advisories/GHSA-35jh-r3h4-6jhm)');

    // Every font is embedded (no standard font a viewer would substitute): subsets of DejaVu as CID-keyed TrueType, shown
    // horizontally through a CMap (the text above read back through their ToUnicode maps); the title is the document's.
    expect(facts.pages).toBe(1);
    expect(facts.title).toBe('Dependency audit');
    expect(facts.fonts.length).toBeGreaterThanOrEqual(4);
    for (const font of facts.fonts) {
      expect(font).toEqual({ name: expect.stringMatching(/^[A-Z]{6}\+DejaVu/), type: 'CIDFontType2', composite: true, vertical: false, embedded: true });
    }

    // The page converts to an image: an A4 page at 60 dpi.
    const png = await renderPdfPage(pdf, 1, 60);
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([496, 702]);

    // The session lists the report among its artifacts.
    const session = await getJson(`${h.url}/api/v2/sessions/${sessionId}`);
    expect(session.json.artifacts).toEqual([expect.objectContaining({ path: 'reports/audit.pdf', project_id: PROJECT, key: `projects/${PROJECT}/reports/audit.pdf`, bytes: result.bytes })]);
  });

  it('renders the HTML subset into the session\'s artifacts, without scripts, styles or fetched images', async () => {
    const { sessionId, results } = await renderCalls([{ path: 'artifacts/page.pdf', content: HTML, format: 'html' }]);
    const result = JSON.parse(results[0]!.content);
    expect(result).toEqual({ path: 'artifacts/page.pdf', pages: 1, bytes: expect.any(Number) });
    const object = await h.server.runtime.artifacts.s3.send(
      new (await import('@aws-sdk/client-s3')).GetObjectCommand({ Bucket: h.stack.store.bucket, Key: `sessions/${sessionId}/artifacts/page.pdf` }),
    );
    expect(object.ContentType).toBe('application/pdf');
    const pdf = await object.Body!.transformToByteArray();
    expect(pdf.byteLength).toBe(result.bytes);
    const { text } = await readPdf(pdf);
    for (const piece of ['HTML report & more', 'Text with bold, italic, code() and a link; a script link.\nSecond line.', 'one', 'nested two', 'three', 'Name', 'Count', 'alpha', 'indented\ncode', 'quoted', 'a div [image: diagram] after']) {
      expect(text).toContain(piece);
    }
    expect(text).not.toContain('script text');
    expect(text).not.toContain('color: red');
    expect(text).not.toContain('ignored');
    const raw = Buffer.from(pdf).toString('latin1');
    expect(raw).toContain('/URI (https://example.com/x)');
    expect(raw).not.toContain('javascript:');
  });

  it('says which characters its fonts cannot show, and still writes the report', async () => {
    const { results } = await renderCalls([{ path: 'artifacts/cjk.pdf', content: '# 報告\n\nThe summary: 日本語 and emoji-free text.\n' }]);
    expect(results[0]!.is_error).toBeFalsy();
    expect(JSON.parse(results[0]!.content)).toMatchObject({ path: 'artifacts/cjk.pdf', pages: 1, not_rendered: expect.stringMatching(/^報告日本語 \(no glyph/) });
  });

  it('refuses reports over 50 pages, outside the writable area, oversized or malformed, and writes nothing', async () => {
    const tooLong = Array.from({ length: 3000 }, (_, i) => `Paragraph ${i}.`).join('\n\n');
    const wideTable = `| ${Array.from({ length: 30 }, (_, i) => `c${i}`).join(' | ')} |\n|${' --- |'.repeat(30)}\n| ${Array.from({ length: 30 }, () => 'x').join(' | ')} |\n`;
    const refusals: [unknown, RegExp][] = [
      [{ path: 'reports/long.pdf', content: tooLong }, /^render_report refused: the report would be longer than 50 pages; shorten it or split it into several reports\. Nothing was written\.$/],
      [{ path: 'artifacts/long.pdf', content: tooLong }, /longer than 50 pages/],
      [{ path: 'reports/wide.pdf', content: wideTable }, /^render_report refused: a table has 30 columns; at most 20 fit on a page\./],
      [{ path: 'src/report.pdf', content: SAMPLE }, /^path refused: render_report writes only under "reports\/" or "artifacts\/", not "src\/report\.pdf"\.$/],
      [{ path: 'reports/../../secrets.pdf', content: SAMPLE }, /^path refused: /],
      [{ path: '/etc/report.pdf', content: SAMPLE }, /^path refused: /],
      [{ path: 'reports/audit.md', content: SAMPLE }, /^path refused: render_report writes PDF files: the path must end in "\.pdf", not "reports\/audit\.md"\.$/],
      [{ path: 'reports/big.pdf', content: 'x'.repeat(200_001) }, /^Invalid input for render_report: content: .*200000/],
      [{ path: 'reports/empty.pdf', content: '' }, /^Invalid input for render_report: content: /],
      [{ path: 'reports/word.pdf', content: 'x', format: 'docx' }, /^Invalid input for render_report: format: /],
      [{ path: 'reports/number.pdf', content: 42 }, /^Invalid input for render_report: content: /],
      [{ content: SAMPLE }, /^Invalid input for render_report: path: /],
    ];
    const reportsBefore = await listed(`projects/${PROJECT}/reports/`);
    const { sessionId, results } = await renderCalls(refusals.map(([input]) => input));
    results.forEach((result, i) => {
      expect(result.is_error, JSON.stringify(refusals[i]![0]).slice(0, 80)).toBe(true);
      expect(result.content).toMatch(refusals[i]![1]);
    });
    // Nothing in the project's reports, the session's artifacts or its artifact list.
    expect(await listed(`projects/${PROJECT}/reports/`)).toEqual(reportsBefore);
    expect(await listed(`sessions/${sessionId}/artifacts/`)).toEqual([]);
    expect(await listed('projects/acme/secrets')).toEqual([]);
    expect((await getJson(`${h.url}/api/v2/sessions/${sessionId}`)).json.artifacts).toEqual([]);
  });

  it('pathological Markdown (deep nesting, endless words) renders or is refused quickly, never hangs', async () => {
    const deep = Array.from({ length: 120 }, (_, i) => `${'  '.repeat(i)}- level ${i}`).join('\n');
    const { results } = await renderCalls([
      { path: 'artifacts/deep.pdf', content: `${deep}\n\n${'>'.repeat(300)} deep quote\n\n${'<ul><li>'.repeat(300)}deep${'</li></ul>'.repeat(300)}\n` },
      { path: 'artifacts/word.pdf', content: 'x'.repeat(199_000) },
      { path: 'artifacts/code.pdf', content: `\`\`\`\n${'y'.repeat(150_000)}\n\`\`\`\n` },
      { path: 'artifacts/quotes.pdf', content: `${'>'.repeat(150_000)} x` },
      { path: 'artifacts/lists.pdf', content: '<ul><li>'.repeat(20_000), format: 'html' },
    ]);
    expect(results[0]!.is_error).toBeFalsy();
    expect(JSON.parse(results[0]!.content).pages).toBeGreaterThan(1);
    expect(results[1]).toMatchObject({ is_error: true, content: expect.stringContaining('longer than 50 pages') });
    expect(results[2]!.is_error).toBeFalsy();
    expect(JSON.parse(results[2]!.content).pages).toBeGreaterThan(20);
    expect(results[3]).toMatchObject({ is_error: true, content: 'render_report refused: the content nests too deeply (lists, quotes or emphasis inside one another); flatten it. Nothing was written.' });
    expect(results[4]).toMatchObject({ is_error: true, content: expect.stringContaining('nests too deeply') });
  }, 60_000);

  it('has side effects: without a rule of its own, the deployment default for tools with side effects decides, as for write_file', async () => {
    const { json } = await getJson(`${h.url}/api/v2/agents`);
    const agent = json.agents.find((a: { id: string }) => a.id === 'plain-reporter');
    expect(agent.policy.render_report).toMatchObject({ level: 'deployment', source: 'the deployment default for tools with side effects' });
    expect(agent.policy.render_report.decision).toBe(agent.policy.write_file.decision);
  });

  it('runs from the bundle a Lambda function deploys, with its fonts installed beside it', async () => {
    const out = join(dir, 'bundle');
    await mkdir(out, { recursive: true });
    await writeFile(
      join(out, 'entry.ts'),
      `import { renderReport } from ${JSON.stringify(join(root, 'packages/runtime/src/reports/render.ts'))};
const pdf = await renderReport('# Bundled → PDF\\n\\nCafé — **bold** \`code\`\\n', { format: 'markdown' });
process.stdout.write(Buffer.from(pdf.bytes).toString('base64'));`,
    );
    const bundle = await bundleFunction(join(out, 'entry.ts'), join(out, 'fn'), 'report', { splitting: true });
    // As SST's `nodejs.install` does: the font package in the function's node_modules, nothing else.
    await cp(join(root, 'node_modules', 'dejavu-fonts-ttf'), join(out, 'fn', 'node_modules', 'dejavu-fonts-ttf'), { recursive: true });
    const { stdout } = await run(process.execPath, [bundle.file], { cwd: join(out, 'fn'), timeout: 30_000, maxBuffer: 10 * 1024 * 1024 });
    expect((await readPdf(Buffer.from(stdout, 'base64'))).text).toContain('Bundled → PDF\nCafé — bold code');
  }, 60_000);
});

describe('a webhook hook that asks for its report as PDF as well', () => {
  const SECRET = 'pdf-hook-secret';
  let h: Harness;
  let dir: string;

  beforeAll(async () => {
    process.env.ZERO_WEBHOOK_SECRET_PDF = SECRET;
    h = await startHarness();
    dir = await mkdtemp(join(tmpdir(), 'zero-hook-pdf-'));
  });
  afterAll(async () => {
    await h.close();
    await rm(dir, { recursive: true, force: true });
  });

  const putHook = async (id: string, body: Record<string, unknown>) => {
    const response = await fetch(`${h.url}/api/v2/hooks/${id}`, { method: 'PUT', headers: { 'content-type': 'application/json', ...DEV }, body: JSON.stringify(body) });
    return { status: response.status, json: await response.json() };
  };
  const hook = { source: 'github', secret_ref: 'ZERO_WEBHOOK_SECRET_PDF', events: ['push'], agent_id: 'tester', project: '{{repository.full_name}}', prompt: 'Review {{ref}}', owner: { user_id: 'alice' } };

  it('report_formats ["md", "pdf"] writes both reports, and the summary names the PDF', async () => {
    expect((await putHook('pdf-push', { ...hook, report_formats: ['md', 'pdf'] })).status).toBe(201);
    h.fake.script({ text: '## Findings\n\n- The branch is clean → **approve**.\n\n| check | result |\n|---|---|\n| tests | pass |\n' });
    const body = JSON.stringify({ ref: 'refs/heads/main', repository: { full_name: 'acme/hooked' } });
    const response = await fetch(`${h.url}/api/v2/webhooks/pdf-push`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-github-event': 'push', 'x-github-delivery': 'pdf-delivery-1', 'x-hub-signature-256': signSha256(SECRET, body) },
      body,
    });
    expect(response.status).toBe(202);
    const sessionId = ((await response.json()) as { session_id: string }).session_id;
    await (h.server.runtime.queue as InProcessQueue).idle();

    // Read as the session's owner.
    const { json } = await getJson(`${h.url}/api/v2/sessions/${sessionId}/summary`, await h.userHeaders('alice'));
    expect(json.summary).toMatchObject({
      status: 'completed',
      warnings: [],
      report: { path: `reports/${sessionId}.md`, project_id: 'acme/hooked' },
      pdf_report: { key: `projects/acme/hooked/reports/${sessionId}.pdf`, path: `reports/${sessionId}.pdf`, project_id: 'acme/hooked', pages: 1 },
    });
    const markdown = await (await fetch(`${h.url}/api/v2/projects/acme/hooked/reports/${sessionId}.md`, { headers: DEV })).text();
    const pdf = new Uint8Array(await (await fetch(`${h.url}/api/v2/projects/acme/hooked/reports/${sessionId}.pdf`, { headers: DEV })).arrayBuffer());
    expect(pdf.byteLength).toBe(json.summary.pdf_report.bytes);
    expect(markdown).toContain('The branch is clean → **approve**.');
    const { text } = await readPdf(pdf);
    expect(text).toContain('Findings');
    expect(text).toContain('The branch is clean → approve.');
    expect(text).toContain('Review refs/heads/main');
  });

  it('a hook without report_formats writes Markdown only; an invalid report_formats is refused with 400 naming the field', async () => {
    const plain = await putHook('md-push', hook);
    expect(plain.status).toBe(201);
    expect(plain.json.hook.report_formats).toEqual(['md']);
    for (const report_formats of [['pdf'], ['md', 'docx'], ['md', 'md'], [], 'pdf']) {
      const refused = await putHook('bad-formats', { ...hook, report_formats });
      expect(refused, JSON.stringify(report_formats)).toMatchObject({ status: 400, json: { error: { field: expect.stringMatching(/^report_formats/) } } });
    }
    expect((await getJson(`${h.url}/api/v2/hooks/bad-formats`)).status).toBe(404);
  });
});
