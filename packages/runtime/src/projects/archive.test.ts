import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { tarGz } from '../../../../tests/support/archive';
import { DEFAULT_ARCHIVE_LIMITS, extractTarGz } from './archive';

const limits = { ...DEFAULT_ARCHIVE_LIMITS, maxBytes: 200_000 };

describe('extractTarGz', () => {
  it('counts the real uncompressed size: 500 empty files with long names are 250 KB of tar, over a 200 KB limit', async () => {
    const archive = await tarGz(Array.from({ length: 500 }, (_, i) => ({ name: `d/${'x'.repeat(200)}${i}`, body: '' })));
    await expect(extractTarGz(Readable.from([archive]), limits)).rejects.toMatchObject({ status: 413, message: 'the archive holds more than 200000 bytes uncompressed' });
  });

  it('counts folders and links against the entry limit', async () => {
    const entries = [{ name: 'a.txt', body: 'a' }, { name: 'dir', type: 'directory' as const }, { name: 'link', type: 'symlink' as const, linkname: 'a.txt' }];
    await expect(extractTarGz(Readable.from([await tarGz(entries)]), { ...limits, maxEntries: 2 })).rejects.toMatchObject({ status: 413, message: 'the archive has more than 2 entries' });
    expect(await extractTarGz(Readable.from([await tarGz(entries)]), { ...limits, maxEntries: 3 })).toMatchObject({ files: [{ path: 'a.txt' }], skippedCount: 1 });
  });
});
