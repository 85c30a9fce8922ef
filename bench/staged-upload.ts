/**
 * A tree too large for a request body, uploaded straight to s3rver through
 * `POST …/uploads` and completed: time of each leg, the first time and again
 * with one file changed (only that file is written). Run with
 * `npx tsx bench/staged-upload.ts` (BENCH_FILES, BENCH_FILE_BYTES to change the size).
 */
import { randomBytes } from 'node:crypto';
import { ZeroClient } from '@zero/client';
import { tarGz, type ArchiveEntry } from '../tests/support/archive';
import { DEV_KEY, startHarness } from '../tests/support/harness';

const FILES = Number(process.env.BENCH_FILES ?? 2_000);
const FILE_BYTES = Number(process.env.BENCH_FILE_BYTES ?? 8 * 1024);

async function main() {
  const h = await startHarness({ noModel: true });
  const zero = new ZeroClient({ url: h.url, key: DEV_KEY });
  // Random text: it compresses only as base64 does, so the archive stays well over 6 MB.
  const entries: ArchiveEntry[] = Array.from({ length: FILES }, (_, i) => ({ name: `tree/src/m${Math.floor(i / 100)}/file${i}.txt`, body: randomBytes((FILE_BYTES * 3) / 4).toString('base64') }));

  const run = async (label: string, archive: Buffer) => {
    const t0 = performance.now();
    const ticket = await zero.startUpload('bench/large', { bytes: archive.length, strip: 1 });
    const t1 = performance.now();
    await zero.sendUpload(ticket, new Uint8Array(archive));
    const t2 = performance.now();
    const result = await zero.completeUpload('bench/large', ticket.upload_id);
    const t3 = performance.now();
    const s = (a: number, b: number) => `${((b - a) / 1000).toFixed(2)} s`;
    console.log(
      `${label}: ${(archive.length / 1024 / 1024).toFixed(1)} MB compressed, ${result.files} files; start ${s(t0, t1)}, send to S3 ${s(t1, t2)}, complete ${s(t2, t3)}; ${result.uploaded} written, ${result.unchanged} unchanged`,
    );
  };

  await run(`first upload`, await tarGz(entries));
  entries[0] = { ...entries[0]!, body: 'changed\n' };
  await run('after a one-file change', await tarGz(entries));
  await h.close();
}

await main();
