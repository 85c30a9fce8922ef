import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tarGz } from './support/archive';
import { startHarness, type Harness, DEV } from './support/harness';

async function upload(url: string, project: string, archive: Buffer) {
  const response = await fetch(`${url}/api/v2/projects/${project}/archive`, {
    method: 'POST',
    headers: { 'content-type': 'application/gzip', ...DEV },
    body: new Uint8Array(archive),
  });
  const text = await response.text();
  return { status: response.status, bytes: text.length, json: JSON.parse(text) };
}

const symlinks = (count: number) => Array.from({ length: count }, (_, i) => ({ name: `links/l${i}`, type: 'symlink' as const, linkname: '/etc/passwd' }));

describe('archive uploads count what is not a file', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  it('200,000 symlink entries are refused with 413 naming the entry limit, a short answer, and nothing written', async () => {
    const archive = await tarGz([{ name: 'readme.md', body: '# hi\n' }, ...symlinks(200_000)]);
    const { status, bytes, json } = await upload(h.url, 'acme/links', archive);
    expect({ status, error: json.error }).toEqual({
      status: 413,
      error: { code: 'payload_too_large', message: 'the archive has more than 20000 entries', field: 'archive' },
    });
    expect(bytes).toBeLessThan(1_000);
    expect((await fetch(`${h.url}/api/v2/projects/acme/links/files`, { headers: DEV })).status).toBe(404);
  }, 60_000);

  it('lists the first 100 skipped entries and counts the rest', async () => {
    const archive = await tarGz([{ name: 'readme.md', body: '# hi\n' }, { name: 'docs', type: 'directory' }, ...symlinks(150)]);
    const { status, json } = await upload(h.url, 'acme/some-links', archive);
    expect(status).toBe(201);
    expect(json).toMatchObject({ files: 1, skipped_count: 150 });
    expect(json.skipped).toHaveLength(100);
    expect(json.skipped[0]).toEqual({ path: 'links/l0', reason: 'symlink entries are not extracted' });
    expect(json.skipped[99].path).toBe('links/l99');
  });

  it('a gzip bomb (1 GiB of zeros) is stopped at the uncompressed limit and answered 413 naming it', async () => {
    const zeros = Buffer.alloc(1024 * 1024);
    const compressed: Buffer[] = [];
    await pipeline(Readable.from((function* () { for (let i = 0; i < 1024; i++) yield zeros; })()), createGzip({ level: 1 }), async (gz) => {
      for await (const chunk of gz) compressed.push(chunk as Buffer);
    });
    const bomb = Buffer.concat(compressed);
    expect(bomb.length).toBeLessThan(10 * 1024 * 1024);
    const { status, json } = await upload(h.url, 'acme/bomb', bomb);
    expect({ status, error: json.error }).toEqual({
      status: 413,
      error: { code: 'payload_too_large', message: 'the archive holds more than 104857600 bytes uncompressed', field: 'archive' },
    });
    expect((await fetch(`${h.url}/api/v2/projects/acme/bomb/files`, { headers: DEV })).status).toBe(404);
  });
});
