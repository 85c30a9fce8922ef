import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { BUNDLE_DIR, bundleFunction } from '../bench/bundle-function';

const root = join(import.meta.dirname, '..');

/** Scans two files with grep's worker and prints the outcomes, as a bundled function would. */
const ENTRY = `
import { scanInWorker } from ${JSON.stringify(join(root, 'packages/runtime/src/tools/grep-worker.ts'))};
const files = [
  { path: 'src/a.ts', read: async () => Buffer.from('import lodash from "lodash";\\nconst x = 1;\\n') },
  { path: 'src/b.ts', read: async () => Buffer.from('nothing here\\n') },
];
const options = { caseInsensitive: false, mode: 'content', context: 0, maxResults: 10, maxLineChars: 500, maxProgramSize: 500 };
const run = { budgetMs: 10_000, signal: new AbortController().signal };
console.log(JSON.stringify([
  await scanInWorker(files, { ...options, pattern: 'lodash' }, run),
  await scanInWorker(files, { ...options, pattern: '\\\\w{1000}' }, run),
]));
`;

describe("grep's scan thread in an esbuild bundle, as on Lambda", () => {
  it('loads its own chunk (with the regex engine) in the worker, not the entry, and answers', async () => {
    const dir = join(BUNDLE_DIR, 'grep-scan');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'entry.ts'), ENTRY);
    const bundle = await bundleFunction(join(dir, 'entry.ts'), join(dir, 'out'), 'grep', { splitting: true });

    const entryInputs = Object.entries(bundle.metafile.outputs).find(([path]) => path.endsWith('/grep.mjs'))![1].inputs;
    expect(Object.keys(entryInputs).filter((input) => input.includes('re2js') || input.includes('grep-scan.mjs'))).toEqual([]);

    const { stdout } = await promisify(execFile)(process.execPath, [bundle.file], { cwd: dir, timeout: 30_000 });
    expect(JSON.parse(stdout)).toEqual([
      { status: 'done', out: ['src/a.ts:1:import lodash from "lodash";'], searched: 2, total: 2 },
      { status: 'refused', message: expect.stringMatching(/^pattern: too complex \(it compiles to 1002 instructions/) },
    ]);
  }, 60_000);
});
