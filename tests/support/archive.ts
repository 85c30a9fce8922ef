import { gzipSync } from 'node:zlib';
import { pack, type Header } from 'tar-stream';

/** One entry of a test archive: a file by default, or any tar header. */
export type ArchiveEntry = { name: string; body?: string | Buffer } & Partial<Header>;

/** Builds a `.tar.gz` in memory, entry names taken literally (so tests can write hostile ones). */
export async function tarGz(entries: ArchiveEntry[]): Promise<Buffer> {
  const archive = pack();
  const chunks: Buffer[] = [];
  archive.on('data', (chunk) => void chunks.push(chunk as Buffer));
  const ended = new Promise<void>((resolve, reject) => {
    archive.on('end', resolve);
    archive.on('error', reject);
  });
  for (const { body, ...header } of entries) {
    await new Promise<void>((resolve, reject) =>
      header.type && header.type !== 'file'
        ? archive.entry({ ...header }, (error) => (error ? reject(error) : resolve()))
        : archive.entry({ type: 'file', ...header }, body ?? '', (error) => (error ? reject(error) : resolve())),
    );
  }
  archive.finalize();
  await ended;
  return gzipSync(Buffer.concat(chunks));
}
