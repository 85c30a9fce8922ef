// grep's regular-expression scan, run in a worker thread so that a costly
// pattern can be stopped (the thread is terminated at grep's deadline) and
// never blocks the server's event loop. Plain JavaScript on purpose: the
// thread loads this very file, from the source tree under tsx and vitest, and
// from its own chunk of the esbuild bundle on Lambda, which SST builds with
// code splitting (see grep-worker.ts and tests/grep-bundle.test.ts).
import { isMainThread, parentPort, workerData } from 'node:worker_threads';

/** This module's URL: in a bundle, the chunk that holds the scan and its regex engine. */
export const grepScanModuleUrl = import.meta.url;

/** The key of `workerData` that makes a thread loading this module serve scans. */
export const GREP_SCAN = 'zero-grep-scan';

if (!isMainThread && workerData?.[GREP_SCAN] && parentPort) void serve(workerData[GREP_SCAN], parentPort);

/**
 * Compiles the pattern, refuses one that is invalid or too complex, then
 * answers each posted file with its output lines, in order.
 */
async function serve(options, port) {
  // A linear-time engine, loaded only here: the main thread never runs a pattern.
  const { RE2JS } = await import('re2js');
  let regex;
  try {
    regex = RE2JS.compile(options.pattern, options.caseInsensitive ? RE2JS.CASE_INSENSITIVE : 0);
  } catch (error) {
    port.postMessage({ type: 'refused', message: `pattern: not a valid RE2 regular expression (${error.message}).` });
    return;
  }
  // Scan cost grows with the compiled program's size; a repetition `x{n}` counts n copies of x.
  const size = regex.matcher('').programSize();
  if (size > options.maxProgramSize) {
    port.postMessage({
      type: 'refused',
      message: `pattern: too complex (it compiles to ${size} instructions, at most ${options.maxProgramSize} are allowed; a repetition such as \\w{1000} counts every copy). Use a shorter pattern or smaller repetition counts.`,
    });
    return;
  }
  const state = { files: 0, lines: 0 };
  port.on('message', (file) => port.postMessage({ type: 'file', ...scanFile(regex, file, options, state) }));
  port.postMessage({ type: 'ready' });
}

/** One file's output lines; `full` once max_results files (or lines, in content mode) are reached. */
function scanFile(regex, { path, bytes }, options, state) {
  const { mode, context: around, maxResults, maxLineChars } = options;
  const none = { out: [], matched: false, full: false };
  // A NUL byte in the first 8 KB: binary, as git decides.
  if (bytes.subarray(0, 8192).includes(0)) return none;
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  // One pass over the whole file first (the DFA, no captures): most files do not match at all.
  if (!regex.test(text)) return none;
  const all = text.split(/\r?\n/);
  const hits = [];
  for (let i = 0; i < all.length; i++) if (regex.test(all[i])) hits.push(i);
  if (hits.length === 0) return none;
  state.files += 1;
  const out = [];
  if (mode === 'files_with_matches') out.push(path);
  else if (mode === 'count') out.push(`${path}:${hits.length}`);
  else {
    const isHit = new Set(hits);
    const shown = new Set();
    for (const hit of hits) {
      if (state.lines >= maxResults) break;
      for (let i = Math.max(0, hit - around); i <= Math.min(all.length - 1, hit + around); i++) {
        if (shown.has(i)) continue;
        shown.add(i);
        const line = all[i];
        const cut = line.length > maxLineChars ? `${line.slice(0, maxLineChars)}…` : line;
        const sep = isHit.has(i) ? ':' : '-';
        out.push(`${path}${sep}${i + 1}${sep}${cut}`);
      }
      state.lines += 1;
      if (around > 0) out.push('--');
    }
  }
  const full = mode === 'content' ? state.lines >= maxResults : state.files >= maxResults;
  return { out, matched: true, full };
}
