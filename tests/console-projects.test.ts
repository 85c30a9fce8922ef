import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { tarGz } from './support/archive';
import { ConsoleBrowser, PHONE, seriousViolations, shot } from './support/browser';
import { getJson, type Harness } from './support/harness';

/** The smallest PDF a viewer opens: one empty page. */
const PDF = '%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj 2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj 3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 200 200]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n';

describe('the console: projects and reports', () => {
  let h: Harness;
  let browser: ConsoleBrowser;
  let dir: string;
  beforeAll(async () => {
    ({ h, browser } = await ConsoleBrowser.open());
    dir = await mkdtemp(join(tmpdir(), 'zero-console-projects-'));
  });
  afterAll(async () => {
    await browser?.closeAll();
    await rm(dir, { recursive: true, force: true });
  });
  afterEach(() => browser.settle());

  it('browses a project: reports open (Markdown rendered, the PDF in the viewer) and download; files show; a .tar.gz and a folder upload', async () => {
    const ada = await h.userHeaders('ada', 'Ada');
    const seeded = await fetch(`${h.url}/api/v2/projects/acme/site/archive`, {
      method: 'POST',
      headers: { ...ada, 'content-type': 'application/gzip' },
      body: new Uint8Array(await tarGz([{ name: 'README.md', body: '# Site\n' }, { name: 'src/index.ts', body: 'export const answer = 42;\n' }])),
    });
    expect(seeded.status).toBe(201);
    await h.server.runtime.projects.putReport('acme/site', 'summary.md', '# Summary\n\nEverything is **fine**.\n');
    await h.server.runtime.projects.putReport('acme/site', 'audit.pdf', new TextEncoder().encode(PDF));

    const page = await browser.signIn('ada', 'Ada');
    await page.getByTestId('open-projects').click();
    await page.getByTestId('project-pick').selectOption('acme/site');
    const list = page.getByTestId('file-list');
    await list.getByText('summary.md').waitFor();
    await list.getByText('audit.pdf').waitFor();

    await list.getByText('summary.md').click();
    const viewer = page.getByTestId('viewer');
    await viewer.locator('.markdown h1').getByText('Summary').waitFor();
    expect(await viewer.locator('.markdown strong').textContent()).toBe('fine');
    const [download] = await Promise.all([page.waitForEvent('download'), viewer.getByTestId('download').click()]);
    expect(download.suggestedFilename()).toBe('summary.md');
    expect(await readFile((await download.path())!, 'utf8')).toBe('# Summary\n\nEverything is **fine**.\n');
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, '50-report-markdown');

    await list.getByText('audit.pdf').click();
    const pdf = viewer.getByTestId('pdf');
    await pdf.waitFor();
    const head = await pdf.evaluate(async (frame) => new TextDecoder().decode((await (await fetch((frame as HTMLIFrameElement).src)).arrayBuffer()).slice(0, 8)));
    expect(head).toBe('%PDF-1.4');
    await shot(page, '51-report-pdf');

    await page.getByTestId('tab-files').click();
    await list.getByText('src/index.ts').click();
    expect(await viewer.getByTestId('file-text').textContent()).toBe('export const answer = 42;\n');

    // A .tar.gz uploads into the project…
    await page.getByTestId('upload-archive').setInputFiles({ name: 'more.tar.gz', mimeType: 'application/gzip', buffer: await tarGz([{ name: 'docs/guide.md', body: '# Guide\n' }]) });
    await page.getByTestId('projects-message').getByText('Uploaded 1 files', { exact: false }).waitFor();
    await list.getByText('docs/guide.md').waitFor();
    // …and so does a folder, its own name dropped from the paths.
    const folder = join(dir, 'upload');
    await mkdir(join(folder, 'notes'), { recursive: true });
    await writeFile(join(folder, 'notes', 'todo.txt'), 'ship it\n');
    await writeFile(join(folder, 'CHANGELOG.md'), '## 1.0\n');
    await page.getByTestId('upload-folder').setInputFiles(folder);
    await page.getByTestId('projects-message').getByText('Uploaded 2 files.').waitFor();
    await list.getByText('notes/todo.txt').waitFor();
    const { json } = await getJson(`${h.url}/api/v2/projects/acme/site/files`, ada);
    expect(json.files.map((f: { path: string }) => f.path).sort()).toEqual(['CHANGELOG.md', 'README.md', 'docs/guide.md', 'notes/todo.txt', 'src/index.ts']);
    expect(await (await fetch(`${h.url}/api/v2/projects/acme/site/files/notes/todo.txt`, { headers: ada })).text()).toBe('ship it\n');
    await shot(page, '52-project-files');

    // A new session offers the project and is listed with it.
    await page.getByTestId('new-session').click();
    await expect.poll(() => page.locator('#project-options option').evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value))).toEqual(['acme/site']);
    await page.getByTestId('agent').selectOption('tester');
    await page.getByTestId('project').fill('acme/site');
    h.fake.script({ text: 'Reading the site.' });
    await page.getByTestId('composer').fill('What is in the site?');
    await page.getByTestId('send').click();
    await page.getByTestId('sessions').getByTestId('session-meta').getByText('tester · acme/site', { exact: false }).waitFor();

    const phone = await browser.signIn('ada', 'Ada', { viewport: PHONE });
    await phone.getByRole('button', { name: 'Sessions' }).click();
    await phone.getByTestId('open-projects').click();
    await phone.getByTestId('project-pick').selectOption('acme/site');
    await phone.getByTestId('file-list').getByText('summary.md').click();
    await phone.getByTestId('viewer').locator('.markdown h1').waitFor();
    expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    await shot(phone, '53-report-phone');
  }, 90_000);
});
