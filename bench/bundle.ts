/**
 * Bundle size and cold-start module initialisation of each Lambda function,
 * against a baseline bundle of only Hono + @anthropic-ai/sdk + the DynamoDB
 * and S3 clients, built the same way in the same run.
 *
 *   npx tsx bench/bundle.ts [--runs 11]
 *
 * Init time: a fresh `node` process per run, with Lambda's `awslambda` global
 * and environment, timing `await import(bundle)` from inside the process (so
 * Node's own boot is excluded); the median of the runs, the bundles measured
 * in alternation so that machine noise hits both alike. Results also go to
 * bench/results/bundle.json.
 */
import { spawnSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BUNDLE_DIR, bundleApi, bundleBaseline, initialBytes, type FunctionBundle } from './bundle-function';

const runs = Number(process.argv[process.argv.indexOf('--runs') + 1]) || 11;

/** What Lambda's Node.js runtime provides before it imports a handler module. */
const RUNTIME_PRELOAD = `
globalThis.awslambda = {
  streamifyResponse: (handler) => handler,
  HttpResponseStream: { from: (stream) => stream },
};
`;

const LAMBDA_ENV = {
  AWS_REGION: 'us-east-1',
  AWS_LAMBDA_FUNCTION_NAME: 'zero-bench-ApiFunction',
  AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '1024',
  AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
  AWS_ACCESS_KEY_ID: 'AKIDBENCH',
  AWS_SECRET_ACCESS_KEY: 'bench',
  ZERO_TABLE: 'zero-bench',
  ZERO_BUCKET: 'zero-bench',
  ANTHROPIC_API_KEY: 'sk-ant-bench',
};

/** Milliseconds a fresh Node process spends importing (loading and evaluating) the bundle. */
function measureInit(file: string, preload: string): number {
  const script = `const t = performance.now(); await import(${JSON.stringify(pathToFileURL(file).href)}); process.stdout.write(String(performance.now() - t));`;
  const result = spawnSync(process.execPath, ['--import', pathToFileURL(preload).href, '--input-type=module', '-e', script], {
    env: { PATH: process.env.PATH, ...LAMBDA_ENV },
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`importing ${file} failed:\n${result.stderr}`);
  return Number(result.stdout);
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const mb = (bytes: number) => `${(bytes / 1_000_000).toFixed(2)} MB`;

async function main() {
  await mkdir(BUNDLE_DIR, { recursive: true });
  const preload = join(BUNDLE_DIR, 'awslambda-preload.mjs');
  await writeFile(preload, RUNTIME_PRELOAD);

  const bundles: Record<string, FunctionBundle> = {
    baseline: await bundleBaseline(),
    'baseline (AWS SDK external)': await bundleBaseline(join(BUNDLE_DIR, 'baseline-external'), { external: ['@aws-sdk/*', '@smithy/*'] }),
    api: await bundleApi(),
  };
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(bundles).map((name) => [name, []]));
  // One warm-up round for the file system cache, then alternate.
  for (const bundle of Object.values(bundles)) measureInit(bundle.file, preload);
  for (let i = 0; i < runs; i++) for (const [name, bundle] of Object.entries(bundles)) times[name]!.push(measureInit(bundle.file, preload));

  const rows = Object.entries(bundles).map(([name, bundle]) => ({
    bundle: name,
    total: bundle.bytes,
    atInit: initialBytes(bundle),
    initMs: median(times[name]!),
  }));
  console.log(`node ${process.version}, ${runs} runs each, median init\n`);
  console.log('bundle                        total      loaded at init   init (median)');
  for (const row of rows) {
    console.log(`${row.bundle.padEnd(28)}  ${mb(row.total).padStart(8)}   ${mb(row.atInit).padStart(12)}   ${row.initMs.toFixed(1).padStart(8)} ms`);
  }
  const api = rows.find((r) => r.bundle === 'api')!;
  const baseline = rows.find((r) => r.bundle === 'baseline')!;
  const pct = (a: number, b: number) => `${a >= b ? '+' : ''}${((a / b - 1) * 100).toFixed(1)}%`;
  console.log(
    `\napi vs baseline: ${pct(api.atInit, baseline.total)} bytes loaded at init, ${pct(api.total, baseline.total)} bytes in all, ${pct(api.initMs, baseline.initMs)} init time`,
  );
  // With code splitting esbuild emits a chunk for every import() it meets, even
  // in code it then drops (the AWS SDK's browser user-agent parser, say), so
  // "total" overstates what can ever load; "loaded at init" is what a cold start reads.
  await mkdir(join(import.meta.dirname, 'results'), { recursive: true });
  await writeFile(join(import.meta.dirname, 'results', 'bundle.json'), JSON.stringify({ node: process.version, runs, rows, times }, null, 2));
}

await main();
