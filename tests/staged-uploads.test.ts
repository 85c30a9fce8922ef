import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ArtifactStore } from '@zero/runtime/store/artifact-store';
import { StagedUploads } from '@zero/runtime/projects/staged-uploads';
import { createS3Client } from '@zero/runtime/store/clients';
import { tarGz } from './support/archive';
import { cliEnv, runCli } from './support/cli';
import { DEV, DEV_KEY, send, startHarness, type Harness } from './support/harness';

/** The limit of a compressed archive in this suite: small, so an oversize one is quick to send. */
const MAX_ARCHIVE_BYTES = 64 * 1024;

/** Sends an archive the way a client of the upload route does: a plain form POST to the presigned URL, not through Zero. */
async function postToStorage(ticket: { url: string; fields: Record<string, string> }, archive: Buffer) {
  const form = new FormData();
  for (const [name, value] of Object.entries(ticket.fields)) form.append(name, value);
  form.append('file', new Blob([new Uint8Array(archive)]), 'archive.tar.gz');
  const response = await fetch(ticket.url, { method: 'POST', body: form });
  await response.arrayBuffer();
  return response.status;
}

describe('archives uploaded straight to S3 (presigned POST, then complete)', () => {
  let h: Harness;
  let artifacts: ArtifactStore;
  let alice: Record<string, string>;
  let victor: Record<string, string>;
  let mallory: Record<string, string>;

  beforeAll(async () => {
    h = await startHarness({ projectLimits: { maxArchiveBytes: MAX_ARCHIVE_BYTES } });
    artifacts = new ArtifactStore(createS3Client(h.stack.store), h.stack.store.bucket);
    alice = await h.userHeaders('alice');
    victor = await h.userHeaders('victor');
    mallory = await h.userHeaders('mallory');
    // Alice's first upload makes her acme/big's owner; Victor only views; Mallory owns a project of her own.
    expect((await send(h, 'PUT', '/projects/acme/big/files/README.md', alice, '# big\n')).status).toBe(201);
    expect((await send(h, 'PUT', '/projects/acme/big/members/victor', alice, { role: 'viewer' })).status).toBe(201);
    expect((await send(h, 'PUT', '/projects/mallory/own/files/a.txt', mallory, 'a')).status).toBe(201);
  });
  afterAll(() => h.close());

  const staged = async () => (await artifacts.list('uploads/')).map((o) => o.key);
  const files = async (project: string) => (await send(h, 'GET', `/projects/${project}/files`, DEV)).json.files as { path: string; etag: string }[];
  const start = (project: string, headers: Record<string, string>, body?: unknown) => send(h, 'POST', `/projects/${project}/uploads`, headers, body);
  const complete = (project: string, id: string, headers: Record<string, string>) => send(h, 'POST', `/projects/${project}/uploads/${id}/complete`, headers);

  it('the archive goes to the presigned URL with plain fetch; completing it makes the files readable through the API', async () => {
    const archive = await tarGz([
      { name: 'shop/src/index.js', body: 'console.log("shop")\n' },
      { name: 'shop/package.json', body: '{"name":"shop"}\n' },
    ]);
    const started = await start('acme/big', alice, { bytes: archive.length, strip: 1 });
    expect(started.status).toBe(201);
    const ticket = started.json;
    expect(ticket).toMatchObject({ method: 'POST', max_bytes: MAX_ARCHIVE_BYTES, upload_id: expect.stringMatching(/^[0-9a-f]{32}$/) });
    // Locally the URL is the embedded s3rver's loopback address, and the archive key is outside every project's files.
    expect(ticket.url.startsWith(h.stack.store.s3Endpoint!)).toBe(true);
    expect(ticket.fields.key).toBe(`uploads/acme/big/${ticket.upload_id}.tar.gz`);
    const lifetime = Date.parse(ticket.expires_at) - Date.now();
    expect(lifetime).toBeGreaterThan(14 * 60_000);
    expect(lifetime).toBeLessThanOrEqual(15 * 60_000);

    expect(await postToStorage(ticket, archive)).toBe(204);
    const done = await complete('acme/big', ticket.upload_id, alice);
    expect(done.status).toBe(201);
    expect(done.json).toMatchObject({ files: 2, uploaded: 2, unchanged: 0, skipped_count: 0, project: { id: 'acme/big' } });
    const read = await fetch(`${h.url}/api/v2/projects/acme/big/files/src/index.js`, { headers: DEV });
    expect(await read.text()).toBe('console.log("shop")\n');
    expect((await files('acme/big')).map((f) => f.path).sort()).toEqual(['README.md', 'package.json', 'src/index.js']);
    // The staged archive and its record are gone; completing again finds nothing.
    expect(await staged()).toEqual([]);
    const again = await complete('acme/big', ticket.upload_id, alice);
    expect(again.status).toBe(404);
    expect(again.json.error).toMatchObject({ code: 'not_found', field: 'upload_id' });
  });

  it('a second upload writes only the files whose content changed', async () => {
    const tree = (app: string) => tarGz([{ name: 'lib/app.js', body: app }, { name: 'lib/util.js', body: 'export const util = 1;\n' }]);
    const upload = async (archive: Buffer) => {
      const { json: ticket } = await start('acme/hashes', alice);
      expect(await postToStorage(ticket, archive)).toBe(204);
      return complete('acme/hashes', ticket.upload_id, alice);
    };
    expect((await upload(await tree('v1'))).json).toMatchObject({ files: 2, uploaded: 2, unchanged: 0 });
    const head = (path: string) => artifacts.s3.send(new HeadObjectCommand({ Bucket: artifacts.bucket, Key: `projects/acme/hashes/files/${path}` }));
    const before = (await head('lib/util.js')).LastModified!.getTime();
    // S3's Last-Modified has a one-second resolution: a rewrite after this would show.
    await new Promise((r) => setTimeout(r, 1100));
    const second = await upload(await tree('v2'));
    expect(second.status).toBe(201);
    expect(second.json).toMatchObject({ files: 2, uploaded: 1, unchanged: 1 });
    expect((await head('lib/util.js')).LastModified!.getTime()).toBe(before);
    expect((await head('lib/app.js')).LastModified!.getTime()).toBeGreaterThan(before);
  });

  it('an unknown, malformed, never-sent or expired upload id is refused, naming upload_id', async () => {
    const unknown = await complete('acme/big', 'f'.repeat(32), alice);
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.message).toContain('no upload');
    const malformed = await complete('acme/big', '..%2F..%2Fprojects', alice);
    expect(malformed.status).toBe(400);
    expect(malformed.json.error.field).toBe('upload_id');

    const { json: ticket } = await start('acme/big', alice);
    const unsent = await complete('acme/big', ticket.upload_id, alice);
    expect(unsent.status).toBe(404);
    expect(unsent.json.error.message).toContain('nothing was sent');

    // An upload started with no time left to complete it (what the route gives an hour).
    const expiring = await new StagedUploads(artifacts, MAX_ARCHIVE_BYTES, { urlTtlMs: 60_000, completeWithinMs: 1 }).create('acme/big', 'alice', 0);
    expect(await postToStorage(expiring, await tarGz([{ name: 'late.txt', body: 'late' }]))).toBe(204);
    await new Promise((r) => setTimeout(r, 10));
    const expired = await complete('acme/big', expiring.upload_id, alice);
    expect(expired.status).toBe(404);
    expect(expired.json.error.message).toContain('expired');
    expect((await files('acme/big')).map((f) => f.path)).not.toContain('late.txt');
    // Under another project's path, an id is unknown.
    const { json: other } = await start('acme/big', alice);
    expect((await complete('mallory/own', other.upload_id, mallory)).status).toBe(404);
  });

  it('an archive over the limit is refused (declared: 400; sent anyway: 413), the project unchanged and the staged object deleted', async () => {
    const declared = await start('acme/big', alice, { bytes: MAX_ARCHIVE_BYTES + 1 });
    expect(declared.status).toBe(400);
    expect(declared.json.error).toMatchObject({ field: 'bytes', limit: MAX_ARCHIVE_BYTES });
    expect(declared.json.error.message).toContain(`${MAX_ARCHIVE_BYTES} bytes`);

    const before = await files('acme/big');
    const revBefore = (await send(h, 'GET', '/projects/acme/big', alice)).json.project.rev;
    // Random bytes do not compress: this archive is over the limit as sent. (S3 refuses it by the policy; s3rver ignores policies.)
    const oversize = await tarGz([{ name: 'blob.bin', body: randomBytes(MAX_ARCHIVE_BYTES + 1024) }]);
    const { json: ticket } = await start('acme/big', alice);
    expect(await postToStorage(ticket, oversize)).toBe(204);
    const refused = await complete('acme/big', ticket.upload_id, alice);
    expect(refused.status).toBe(413);
    expect(refused.json.error).toMatchObject({ code: 'payload_too_large', field: 'archive', limit: MAX_ARCHIVE_BYTES });
    expect(refused.json.error.message).toContain(`${MAX_ARCHIVE_BYTES} bytes`);
    expect(await files('acme/big')).toEqual(before);
    expect((await send(h, 'GET', '/projects/acme/big', alice)).json.project.rev).toBe(revBefore);
    expect(await staged()).not.toContain(`uploads/acme/big/${ticket.upload_id}.tar.gz`);
    expect((await complete('acme/big', ticket.upload_id, alice)).status).toBe(404);
  });

  it('a broken archive is a 400 as the archive route says, and changes nothing', async () => {
    const before = await files('acme/big');
    const { json: ticket } = await start('acme/big', alice);
    expect(await postToStorage(ticket, Buffer.from('this is not gzip'))).toBe(204);
    const broken = await complete('acme/big', ticket.upload_id, alice);
    expect(broken.status).toBe(400);
    expect(broken.json.error).toMatchObject({ code: 'invalid_request', field: 'archive' });
    expect(broken.json.error.message).toContain('not a readable .tar.gz');
    expect(await files('acme/big')).toEqual(before);
    expect(await staged()).not.toContain(`uploads/acme/big/${ticket.upload_id}.tar.gz`);
  });

  it('a bad body names the field', async () => {
    const bad = await start('acme/big', alice, { strip: 'one' });
    expect(bad.status).toBe(400);
    expect(bad.json.error.field).toBe('strip');
    expect((await start('acme/big', alice, { extra: 1 })).status).toBe(400);
  });

  it('a viewer gets 403 and a user of another project 404, on both routes, and the upload stays completable by an editor', async () => {
    expect((await start('acme/big', victor)).status).toBe(403);
    expect((await start('acme/big', mallory)).status).toBe(404);
    const { json: ticket } = await start('acme/big', alice);
    expect(await postToStorage(ticket, await tarGz([{ name: 'notes.txt', body: 'by alice' }]))).toBe(204);
    expect((await complete('acme/big', ticket.upload_id, victor)).status).toBe(403);
    expect((await complete('acme/big', ticket.upload_id, mallory)).status).toBe(404);
    expect((await files('acme/big')).map((f) => f.path)).not.toContain('notes.txt');
    expect((await complete('acme/big', ticket.upload_id, alice)).status).toBe(201);
    expect((await files('acme/big')).map((f) => f.path)).toContain('notes.txt');
  });

  it('zero projects push goes through S3 when the archive is over ZERO_PUSH_BODY_MAX_BYTES', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'zero-push-s3-'));
    mkdirSync(join(dir, 'src'));
    writeFileSync(join(dir, 'src', 'main.py'), 'print("hi")\n');
    writeFileSync(join(dir, 'README.md'), '# pushed through S3\n');
    const run = await runCli(['projects', 'push', dir, 'acme/pushed-s3'], { env: cliEnv({ ZERO_URL: h.url, ZERO_KEY: DEV_KEY, ZERO_PUSH_BODY_MAX_BYTES: '10' }) });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('uploading to acme/pushed-s3 through S3');
    expect(run.stderr).toContain('acme/pushed-s3: 2 files');
    expect((await files('acme/pushed-s3')).map((f) => f.path).sort()).toEqual(['README.md', 'src/main.py']);
    expect((await staged()).filter((key) => key.startsWith('uploads/acme/pushed-s3/'))).toEqual([]);
  });
});
