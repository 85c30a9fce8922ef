/**
 * Where the API's cold-start import spends its CPU, by source file: bundles the API as SST does but
 * unminified (esbuild then marks each module's code with its path), imports it under `--cpu-prof` in
 * fresh processes, and prints self time by file and zod's self time by the first caller outside zod.
 * The shares hold on a loaded machine where the milliseconds do not.
 *
 *   npx tsx bench/import-profile.ts [runs=5]
 */
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
const root = join(import.meta.dirname, '..');
const work = join(root, 'node_modules', '.cache', 'zero-import-profile');
const out = join(work, 'api'); rmSync(out, { recursive: true, force: true });
await build({ entryPoints: { api: join(root, 'functions/api.ts') }, outdir: out, entryNames: '[name]', chunkNames: 'chunks/[name]-[hash]', outExtension: { '.js': '.mjs' }, bundle: true, platform: 'node', target: 'node22', format: 'esm', mainFields: ['module', 'main'], minify: false, keepNames: true, splitting: true, external: ['sharp', 'pg-native'], banner: { js: "import { createRequire as topLevelCreateRequire } from 'module';const require = topLevelCreateRequire(import.meta.url);" }, logLevel: 'silent' });
const preload = join(work, 'preload.mjs');
writeFileSync(preload, `globalThis.awslambda = { streamifyResponse: (h) => h, HttpResponseStream: { from: (s) => s } };`);
const env = { ...process.env, AWS_REGION: 'us-east-1', AWS_LAMBDA_FUNCTION_NAME: 'x', AWS_ACCESS_KEY_ID: 'A', AWS_SECRET_ACCESS_KEY: 'b', ZERO_TABLE: 't', ZERO_BUCKET: 'b', ANTHROPIC_API_KEY: 'k', NODE_NO_WARNINGS: '1' };
const profDir = join(work, 'prof'); rmSync(profDir, { recursive: true, force: true }); mkdirSync(profDir);
const runs = Number(process.argv[2] ?? 5);
for (let i = 0; i < runs; i++) spawnSync(process.execPath, ['--cpu-prof', '--cpu-prof-dir', profDir, '--import', pathToFileURL(preload).href, '--input-type=module', '-e', `await import(${JSON.stringify(pathToFileURL(join(out, 'api.mjs')).href)})`], { env });
// line → source file, from esbuild's "// path" comments
const sources = new Map<string, string[]>();
const fileOf = (url: string, line: number) => {
  const path = url.replace('file://', '');
  if (!path.startsWith(out)) return path.includes('node:') || !path ? '(node)' : '(other)';
  let lines = sources.get(path);
  if (!lines) { const text = readFileSync(path, 'utf8').split('\n'); lines = []; let cur = '?'; for (const l of text) { const m = /^\/\/ (\S+\.(?:ts|js|mjs|cjs|json))$/.exec(l); if (m) cur = m[1]!; lines.push(cur); } sources.set(path, lines); }
  return lines[line] ?? '?';
};
const self = new Map<string, number>();
let total = 0;
for (const f of readdirSync(profDir)) {
  const p = JSON.parse(readFileSync(join(profDir, f), 'utf8'));
  const byId = new Map(p.nodes.map((n: any) => [n.id, n]));
  const dt = new Map<number, number>();
  p.samples.forEach((id: number, i: number) => dt.set(id, (dt.get(id) ?? 0) + (p.timeDeltas[i] ?? 0) / 1000));
  for (const [id, ms] of dt) { const n: any = byId.get(id); const cf = n.callFrame; let key = cf.url ? fileOf(cf.url, cf.lineNumber) : `(${cf.functionName || 'native'})`; if (key.startsWith('node_modules/')) key = key.split('/').slice(0, key.includes('/@') ? 3 : 2).join('/'); self.set(key, (self.get(key) ?? 0) + ms); total += ms; }
}
const rows = [...self].sort((a, b) => b[1] - a[1]).slice(0, 40);
console.log(`total sampled ${(total / runs).toFixed(1)} ms per import`);
for (const [k, ms] of rows) console.log(`${(ms / runs).toFixed(2).padStart(7)} ms  ${k}`);
// zod self time by the nearest caller outside zod
const callers = new Map<string, number>();
for (const f of readdirSync(profDir)) {
  const p = JSON.parse(readFileSync(join(profDir, f), 'utf8'));
  const byId = new Map<number, any>(p.nodes.map((n: any) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const where = (n: any) => (n.callFrame.url ? fileOf(n.callFrame.url, n.callFrame.lineNumber) : '');
  p.samples.forEach((id: number, i: number) => {
    let n = byId.get(id);
    if (!where(n).startsWith('node_modules/zod')) return;
    while (n && where(n).startsWith('node_modules/zod')) n = byId.get(parent.get(n.id)!);
    const key = n ? `${where(n)}:${n.callFrame.functionName || '(top)'}` : '?';
    callers.set(key, (callers.get(key) ?? 0) + (p.timeDeltas[i] ?? 0) / 1000 / runs);
  });
}
console.log('\nzod self time by caller:');
for (const [k, ms] of [...callers].sort((a, b) => b[1] - a[1]).slice(0, 40)) console.log(`${ms.toFixed(2).padStart(7)} ms  ${k}`);
