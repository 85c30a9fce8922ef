/**
 * Where the API's cold-start import spends its wall time, by module: bundles the API as SST does but
 * unminified, puts a timestamp before each module's top-level code (esbuild marks it with a `// path`
 * comment), imports it in fresh processes and prints, per module, the time from its mark to the next
 * one: its top-level evaluation, including what it calls (the schemas a module builds at import land on
 * it; zod's own warm-up lands on whichever module builds the first schema). "(before the first module)"
 * is loading, parsing and linking every chunk a cold start reads. A CPU profile cannot give this split
 * (`bench/import-profile.ts` sees every chunk's top-level code as one anonymous function). It also counts
 * the zod schemas (zod's internal objects, one per schema and per method that derives one) built
 * during the import: a figure the machine's load does not move, to compare commits by.
 *
 *   npx tsx bench/import-marks.ts [runs=7] [rows=40]
 */
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = join(import.meta.dirname, '..');
const work = join(root, 'node_modules', '.cache', 'zero-import-marks');
const out = join(work, 'api');
rmSync(work, { recursive: true, force: true });
await build({ entryPoints: { api: join(root, 'functions/api.ts') }, outdir: out, entryNames: '[name]', chunkNames: 'chunks/[name]-[hash]', outExtension: { '.js': '.mjs' }, bundle: true, platform: 'node', target: 'node22', format: 'esm', mainFields: ['module', 'main'], minify: false, keepNames: true, splitting: true, external: ['sharp', 'pg-native'], banner: { js: "import { createRequire as topLevelCreateRequire } from 'module';const require = topLevelCreateRequire(import.meta.url);" }, logLevel: 'silent' });
for (const file of ['api.mjs', ...readdirSync(join(out, 'chunks')).map((name) => join('chunks', name))]) {
  const path = join(out, file);
  const marked = readFileSync(path, 'utf8')
    .replace(/function Internals\(def\) \{/g, '$& globalThis.__zeroSchemas = (globalThis.__zeroSchemas ?? 0) + 1;')
    .replace(/^(\s*)\/\/ (\S+\.(?:ts|js|mjs|cjs|json))$/gm, (line, indent: string, source: string) => `${indent}globalThis.__zeroMark(${JSON.stringify(source)});\n${line}`);
  writeFileSync(path, marked);
}
const preload = join(work, 'preload.mjs');
writeFileSync(preload, `globalThis.awslambda = { streamifyResponse: (h) => h, HttpResponseStream: { from: (s) => s } };
const spent = (globalThis.__zeroSpent = new Map()), built = (globalThis.__zeroBuilt = new Map()); let current = '(before the first module)', since = performance.now(), count = 0;
globalThis.__zeroMark = (source) => { const now = performance.now(), schemas = globalThis.__zeroSchemas ?? 0; spent.set(current, (spent.get(current) ?? 0) + now - since); built.set(current, (built.get(current) ?? 0) + schemas - count); current = source; count = schemas; since = performance.now(); };`);
const env = { PATH: process.env.PATH, AWS_REGION: 'us-east-1', AWS_LAMBDA_FUNCTION_NAME: 'x', AWS_ACCESS_KEY_ID: 'A', AWS_SECRET_ACCESS_KEY: 'b', ZERO_TABLE: 't', ZERO_BUCKET: 'b', ANTHROPIC_API_KEY: 'k', NODE_NO_WARNINGS: '1' };
const runs = Number(process.argv[2] ?? 7);
const shown = Number(process.argv[3] ?? 40);
const script = `const t = performance.now(); await import(${JSON.stringify(pathToFileURL(join(out, 'api.mjs')).href)}); const total = performance.now() - t; globalThis.__zeroMark('(end)'); process.stdout.write(JSON.stringify({ total, schemas: globalThis.__zeroSchemas ?? 0, spent: [...globalThis.__zeroSpent], built: [...globalThis.__zeroBuilt] }));`;
const byModule = new Map<string, number>();
const totals: number[] = [];
let schemas = 0;
const builtBy = new Map<string, number>();
for (let i = 0; i < runs; i++) {
  const result = spawnSync(process.execPath, ['--import', pathToFileURL(preload).href, '--input-type=module', '-e', script], { env, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`importing the marked bundle failed:\n${result.stderr}`);
  const parsed = JSON.parse(result.stdout) as { total: number; schemas: number; spent: [string, number][]; built: [string, number][] };
  totals.push(parsed.total);
  schemas = parsed.schemas;
  for (const [source, n] of parsed.built) builtBy.set(source, n);
  const spent = parsed.spent;
  for (const [source, ms] of spent) {
    const key = source.startsWith('node_modules/') ? source.split('/').slice(0, source.includes('/@') ? 3 : 2).join('/') : source;
    byModule.set(key, (byModule.get(key) ?? 0) + ms);
  }
}
totals.sort((a, b) => a - b);
if (!schemas) console.log('(zod\'s internals were not found in the bundle to count schemas: has zod changed?)');
else console.log(`zod schemas built during the import: ${schemas}`);
console.log(`import: median ${totals[Math.floor(runs / 2)]!.toFixed(1)} ms of ${runs} (unminified and marked, so slower than the bench's bundle); mean per module:`);
for (const [source, ms] of [...byModule].sort((a, b) => b[1] - a[1]).slice(0, shown)) console.log(`${(ms / runs).toFixed(2).padStart(7)} ms  ${source}`);
console.log('\nzod schemas built by module (its top-level code and what it calls):');
for (const [source, n] of [...builtBy].sort((a, b) => b[1] - a[1]).slice(0, shown)) if (n) console.log(`${String(n).padStart(7)}  ${source}`);
