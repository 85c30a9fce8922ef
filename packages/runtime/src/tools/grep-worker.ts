import { Worker } from 'node:worker_threads';
import type { GrepScanOptions, GrepScanReply } from './grep-scan.mjs';

/** A file to scan; its bytes are read only when the scan reaches it. */
export interface ScanSource {
  path: string;
  read(): Promise<Uint8Array>;
}

/** How a scan ended: every file searched, enough results, the budget or an abort cut it; or the pattern was refused, or the scan failed. */
export type ScanOutcome =
  | { status: 'refused'; message: string }
  | { status: 'failed'; message: string }
  | { status: 'done' | 'full' | 'budget' | 'aborted'; out: string[]; searched: number; total: number };

/** Files posted ahead of the one being scanned, so reading overlaps scanning. */
const READ_AHEAD = 4;

/**
 * Scans files in a worker thread, the main thread only reading them and
 * collecting answers. At the budget (or on abort) the thread is terminated:
 * a synchronous regex scan cannot be interrupted any other way, and the
 * server's event loop stays free meanwhile. Must not throw.
 */
export async function scanInWorker(files: ScanSource[], options: GrepScanOptions, run: { budgetMs: number; signal: AbortSignal }): Promise<ScanOutcome> {
  // A module of its own, loaded with import(): bundled, it is a chunk whose URL the thread loads.
  const { grepScanModuleUrl, GREP_SCAN } = await import('./grep-scan.mjs');
  const worker = new Worker(new URL(grepScanModuleUrl), {
    workerData: { [GREP_SCAN]: options },
    // A scan holds one file (at most a few MB) and the engine's caches; bound what a hostile pattern may allocate.
    resourceLimits: { maxOldGenerationSizeMb: 256 },
  });
  const out: string[] = [];
  let searched = 0;
  let sent = 0;
  let reading = false;
  let settled = false;

  return new Promise<ScanOutcome>((resolve) => {
    const finish = (outcome: ScanOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      run.signal.removeEventListener('abort', onAbort);
      void worker.terminate();
      resolve(outcome);
    };
    const progress = (status: 'done' | 'full' | 'budget' | 'aborted'): ScanOutcome => ({ status, out, searched, total: files.length });
    const onAbort = () => finish(progress('aborted'));
    const timer = setTimeout(() => finish(progress('budget')), run.budgetMs);
    run.signal.addEventListener('abort', onAbort, { once: true });
    if (run.signal.aborted) return onAbort();

    const readAhead = async () => {
      if (reading) return;
      reading = true;
      try {
        while (!settled && sent < files.length && sent - searched < READ_AHEAD) {
          const file = files[sent++]!;
          const bytes = await file.read();
          if (!settled) worker.postMessage({ path: file.path, bytes });
        }
      } catch (error) {
        finish({ status: 'failed', message: `grep could not read the project's files: ${(error as Error).message}` });
      } finally {
        reading = false;
      }
    };

    worker.on('message', (reply: GrepScanReply) => {
      if (reply.type === 'refused') return finish({ status: 'refused', message: reply.message });
      if (reply.type === 'file') {
        searched += 1;
        out.push(...reply.out);
        if (reply.full) return finish(progress('full'));
      }
      if (searched === files.length) return finish(progress('done'));
      void readAhead();
    });
    worker.on('error', (error) => finish({ status: 'failed', message: `grep's scan failed: ${error.message}` }));
    worker.on('exit', () => finish({ status: 'failed', message: "grep's scan stopped unexpectedly" }));
  });
}
