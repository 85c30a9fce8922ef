import { randomBytes } from 'node:crypto';
import type { Page, Request } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ArtifactStore } from '@zero/runtime/store/artifact-store';
import { createS3Client } from '@zero/runtime/store/clients';
import { tarGz } from './support/archive';
import { ConsoleBrowser, shot } from './support/browser';
import { DEV, getJson, type Harness } from './support/harness';

/** The archive limit here: small, so an archive over it is quick to make. */
const MAX_ARCHIVE_BYTES = 256 * 1024;
/** The console's request-body threshold, lowered for this suite (5 MB by default) so a 64 KB archive goes through S3. */
const BODY_MAX_BYTES = 1024;

/** One request the page made, once it finished: where it went, what it carried, how it was answered. */
type Seen = { method: string; url: URL; bodyBytes: number; status: number };

/** Every request the page makes, with its body's size as sent. */
function recordRequests(page: Page): Seen[] {
  const seen: Seen[] = [];
  const record = async (request: Request) => {
    const response = await request.response();
    // The Content-Length the browser sent (Playwright keeps no copy of a file-backed body).
    const length = Number((await request.allHeaders())['content-length'] ?? request.postDataBuffer()?.length ?? 0);
    seen.push({ method: request.method(), url: new URL(request.url()), bodyBytes: length, status: response?.status() ?? 0 });
  };
  page.on('requestfinished', (request) => void record(request));
  page.on('requestfailed', (request) => seen.push({ method: request.method(), url: new URL(request.url()), bodyBytes: 0, status: 0 }));
  return seen;
}

/** The texts the upload's status line showed, as the page rendered them (a MutationObserver; a fast upload shows each only briefly). */
async function watchUploadStatus(page: Page): Promise<() => Promise<string[]>> {
  await page.evaluate(() => {
    const shown: string[] = [];
    (window as unknown as { shownStatus: string[] }).shownStatus = shown;
    new MutationObserver(() => {
      const text = document.querySelector('[data-testid=upload-progress]')?.textContent;
      if (text && shown.at(-1) !== text) shown.push(text);
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  return () => page.evaluate(() => (window as unknown as { shownStatus: string[] }).shownStatus);
}

describe('the console: archives too large for a request body go straight to S3', () => {
  let h: Harness;
  let browser: ConsoleBrowser;
  let artifacts: ArtifactStore;
  let ada: Record<string, string>;
  let page: Page;
  let seen: Seen[];

  beforeAll(async () => {
    ({ h, browser } = await ConsoleBrowser.open({ projectLimits: { maxArchiveBytes: MAX_ARCHIVE_BYTES } }));
    artifacts = new ArtifactStore(createS3Client(h.stack.store), h.stack.store.bucket);
    ada = await h.userHeaders('ada', 'Ada');
    const seeded = await fetch(`${h.url}/api/v2/projects/acme/big/archive`, {
      method: 'POST',
      headers: { ...ada, 'content-type': 'application/gzip' },
      body: new Uint8Array(await tarGz([{ name: 'README.md', body: '# Big\n' }])),
    });
    expect(seeded.status).toBe(201);
    page = await browser.signIn('ada', 'Ada');
    await page.evaluate((max) => localStorage.setItem('zero.uploadBodyMaxBytes', String(max)), BODY_MAX_BYTES);
    await page.getByTestId('open-projects').click();
    await page.getByTestId('project-pick').selectOption('acme/big');
    await page.getByTestId('tab-files').click();
    await page.getByTestId('file-list').getByText('README.md').waitFor();
    seen = recordRequests(page);
  }, 60_000);
  afterAll(() => browser?.closeAll());
  afterEach(() => {
    browser.settle();
    seen.length = 0;
  });

  const s3Origin = () => new URL(h.stack.store.s3Endpoint!).origin;
  const files = async () => ((await getJson(`${h.url}/api/v2/projects/acme/big/files`, DEV)).json.files as { path: string; etag: string }[]).map((f) => `${f.path} ${f.etag}`).sort();
  const staged = async () => (await artifacts.list('uploads/')).map((o) => o.key);
  const toApi = () => seen.filter((r) => r.url.origin === new URL(h.url).origin && r.url.pathname.startsWith('/api/v2/projects/acme/big/'));
  const toStorage = () => seen.filter((r) => r.url.origin === s3Origin());
  const pick = (name: string, buffer: Buffer) => page.getByTestId('upload-archive').setInputFiles({ name, mimeType: 'application/gzip', buffer });

  it('an archive over the threshold is posted to s3rver, not to the API, then applied: its files show in the project', async () => {
    // Random bytes do not compress: the archive stays about 64 KB, far above the threshold.
    const archive = await tarGz([
      { name: 'assets/blob.bin', body: randomBytes(64 * 1024) },
      { name: 'docs/guide.md', body: '# Guide\n' },
    ]);
    expect(archive.length).toBeGreaterThan(64 * 1024);
    const shownStatus = await watchUploadStatus(page);
    await pick('big.tar.gz', archive);
    await page.getByTestId('projects-message').getByText('Uploaded 2 files', { exact: false }).waitFor();
    const list = page.getByTestId('file-list');
    await list.getByText('docs/guide.md').waitFor();
    await list.getByText('assets/blob.bin').waitFor();

    // s3rver answered the browser's form POST (its 204), which carried the whole archive…
    // A request is recorded once Playwright reports it finished, which may come after the page showed its answer.
    await expect.poll(() => toStorage().filter((r) => r.method === 'POST').length, { timeout: 10_000 }).toBe(1);
    const storage = toStorage().filter((r) => r.method === 'POST');
    expect(storage).toHaveLength(1);
    expect(storage[0]).toMatchObject({ status: 204 });
    expect(storage[0]!.bodyBytes).toBeGreaterThan(archive.length);
    // …and the API saw only the start and the completion, never the archive as a body.
    await expect.poll(() => toApi().filter((r) => r.method === 'POST').map((r) => `${r.url.pathname.replace(/[0-9a-f]{32}/, ':id')} ${r.status}`), { timeout: 10_000 }).toEqual([
      '/api/v2/projects/acme/big/uploads 201',
      '/api/v2/projects/acme/big/uploads/:id/complete 201',
    ]);
    expect(toApi().filter((r) => r.url.pathname.endsWith('/archive'))).toEqual([]);
    expect(Math.max(...toApi().map((r) => r.bodyBytes))).toBeLessThan(200);

    // The page said where the bytes went, then that Zero was unpacking them.
    const shown = await shownStatus();
    expect(shown.some((text) => /^Sending big\.tar\.gz straight to storage: \d+% of [\d,]+ bytes/.test(text))).toBe(true);
    expect(shown.at(-1)).toBe('Unpacking big.tar.gz into the project…');
    expect(await files()).toEqual(expect.arrayContaining([expect.stringMatching(/^assets\/blob\.bin /), expect.stringMatching(/^docs\/guide\.md /)]));
    expect(await staged()).toEqual([]);
    await shot(page, '54-project-upload-through-s3');
  }, 60_000);

  it('a broken archive reaches S3 but completing it is refused: the page says why, and the files stay as they were', async () => {
    const before = await files();
    await pick('broken.tar.gz', randomBytes(8 * 1024));
    await page.getByTestId('projects-message').getByText('not a readable .tar.gz archive', { exact: false }).waitFor();
    await expect.poll(() => toStorage().filter((r) => r.method === 'POST').map((r) => r.status), { timeout: 10_000 }).toEqual([204]);
    await expect.poll(() => toApi().filter((r) => r.method === 'POST').map((r) => `${r.url.pathname.replace(/[0-9a-f]{32}/, ':id')} ${r.status}`), { timeout: 10_000 }).toEqual([
      '/api/v2/projects/acme/big/uploads 201',
      '/api/v2/projects/acme/big/uploads/:id/complete 400',
    ]);
    expect(await files()).toEqual(before);
    // Refused for good, so not kept for a retry.
    expect(await staged()).toEqual([]);
    expect(await page.getByTestId('upload-progress').count()).toBe(0);
    expect(await page.getByTestId('upload-archive').isEnabled()).toBe(true);
  }, 30_000);

  it('an archive over the limit is refused before any byte is sent, naming the limit', async () => {
    const before = await files();
    await pick('huge.tar.gz', randomBytes(MAX_ARCHIVE_BYTES + 1));
    await page.getByTestId('projects-message').getByText(`at most ${MAX_ARCHIVE_BYTES} bytes compressed`, { exact: false }).waitFor();
    expect(toStorage()).toEqual([]);
    await expect.poll(() => toApi().filter((r) => r.method === 'POST').map((r) => `${r.url.pathname} ${r.status}`), { timeout: 10_000 }).toEqual(['/api/v2/projects/acme/big/uploads 400']);
    expect(await files()).toEqual(before);
    expect(await staged()).toEqual([]);
  }, 30_000);

  it("S3's refusal of an expired upload link is explained, and nothing is applied", async () => {
    // s3rver does not enforce a form's policy; S3 answers a POST after the policy's expiration with this.
    const expired = '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>AccessDenied</Code><Message>Invalid according to Policy: Policy expired.</Message><RequestId>R</RequestId><HostId>H</HostId></Error>';
    const cors = { 'access-control-allow-origin': new URL(h.url).origin, 'access-control-allow-methods': 'POST' };
    await page.route(`${s3Origin()}/**`, (route) =>
      route.fulfill(route.request().method() === 'OPTIONS' ? { status: 200, headers: cors } : { status: 403, headers: { ...cors, 'content-type': 'application/xml' }, body: expired }),
    );
    try {
      const before = await files();
      await pick('late.tar.gz', await tarGz([{ name: 'late.bin', body: randomBytes(4096) }]));
      await page.getByTestId('projects-message').getByText('The upload link expired before the archive was sent', { exact: false }).waitFor();
      // Started, never completed: the console does not ask Zero to apply what S3 refused.
      expect(toApi().filter((r) => r.method === 'POST').map((r) => `${r.url.pathname} ${r.status}`)).toEqual(['/api/v2/projects/acme/big/uploads 201']);
      expect(await files()).toEqual(before);
    } finally {
      await page.unroute(`${s3Origin()}/**`);
    }
  }, 30_000);
});
