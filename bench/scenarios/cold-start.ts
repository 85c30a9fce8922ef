import { spawnSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BUNDLE_DIR, bundleApi, bundleBaseline, initialBytes, type FunctionBundle } from '../bundle-function';
import { median } from '../support/stats';

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

export interface BundleRow {
  bundle: string;
  /** Bytes of every file written. */
  total: number;
  /** Bytes a cold start loads: the entry and the chunks it imports statically. */
  atInit: number;
  /** Median milliseconds to import the bundle in a fresh Node process. */
  initMs: number;
  /** The fastest of the runs: on a shared machine, the least disturbed. */
  minMs: number;
}

export interface ColdStartResult {
  node: string;
  runs: number;
  rows: BundleRow[];
  times: Record<string, number[]>;
  /**
   * The API (as Zero deploys it: split, then its init chunks merged) ÷ the
   * baseline bundled the same way: the median of each round's ratio, since a round measures both
   * back to back and load from elsewhere moves both alike.
   */
  ratio: number;
  /** The same against the baseline bundled without splitting (a bare handler as SST builds it by default). */
  ratio_unsplit: number;
}

/**
 * Bundle size and cold-start module initialisation of the API function,
 * against a baseline of only Hono + @anthropic-ai/sdk + the DynamoDB and S3
 * clients, each bundled the way Zero deploys its API (SST's build with code
 * splitting, then the chunks loaded at init merged: scripts/merge-init-chunks.mjs)
 * in the same run; the baseline without splitting and with the AWS SDK left
 * to the runtime are printed for reference.
 *
 * Init time: a fresh `node` process per run, with Lambda's `awslambda`
 * global and environment, timing `await import(bundle)` from inside the
 * process (so Node's own boot is excluded); the median of the runs, the
 * bundles measured in alternation so that machine noise hits each alike.
 */
export async function coldStart(runs: number): Promise<ColdStartResult> {
  await mkdir(BUNDLE_DIR, { recursive: true });
  const preload = join(BUNDLE_DIR, 'awslambda-preload.mjs');
  await writeFile(preload, RUNTIME_PRELOAD);

  const bundles: Record<string, FunctionBundle> = {
    api: await bundleApi(),
    baseline: await bundleBaseline(join(BUNDLE_DIR, 'baseline-split'), { splitting: true }),
    'baseline (no splitting)': await bundleBaseline(),
    'baseline (AWS SDK external)': await bundleBaseline(join(BUNDLE_DIR, 'baseline-external'), { external: ['@aws-sdk/*', '@smithy/*'] }),
  };
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(bundles).map((name) => [name, []]));
  // One warm-up round for the file system cache, then alternate.
  for (const bundle of Object.values(bundles)) measureInit(bundle.file, preload);
  for (let i = 0; i < runs; i++) for (const [name, bundle] of Object.entries(bundles)) times[name]!.push(measureInit(bundle.file, preload));

  const rows = Object.entries(bundles).map(([name, bundle]) => ({ bundle: name, total: bundle.bytes, atInit: initialBytes(bundle), initMs: median(times[name]!), minMs: Math.min(...times[name]!) }));
  const ratioTo = (baseline: string) => median(times.api!.map((api, i) => api / times[baseline]![i]!));
  return { node: process.version, runs, rows, times, ratio: ratioTo('baseline'), ratio_unsplit: ratioTo('baseline (no splitting)') };
}

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
