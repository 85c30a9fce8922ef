import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { build, type Metafile } from 'esbuild';
import { mergeInitChunks } from '../scripts/merge-init-chunks.mjs';

export interface FunctionBundle {
  /** The bundle's entry file (`<outdir>/<name>.mjs`). */
  file: string;
  /** Bytes of every file written (the entry and any lazily loaded chunks). */
  bytes: number;
  /** Bytes of the entry file alone: what a cold start reads before the first request. */
  entryBytes: number;
  metafile: Metafile;
}

export interface BundleOptions {
  /** Packages left out of the bundle (Lambda's runtime ships `@aws-sdk/*`). */
  external?: string[];
  /** Code split at dynamic `import()`s, so what a request does not need is loaded when first used. */
  splitting?: boolean;
  /**
   * With splitting: the chunks the entry imports statically merged into one file afterwards, as
   * sst.config.ts does after SST's build (scripts/merge-init-chunks.mjs). On unless false; the
   * metafile describes esbuild's output before the merge (the same modules, in more files).
   */
  mergeInit?: boolean;
}

/**
 * Bundles a function the way Zero deploys it, SST's Node.js builder then sst.config.ts's merge of
 * the chunks loaded at init (see BundleOptions.mergeInit): ESM, platform node,
 * minified, names kept, `module` before `main`, `require` provided through
 * `createRequire` for CommonJS dependencies, `sharp` and `pg-native` external.
 * The AWS SDK is bundled (SST's default too): pinned versions and a single
 * file that initialises faster than the runtime's copy spread over hundreds.
 */
export async function bundleFunction(entry: string, outdir: string, name: string, options: BundleOptions = {}): Promise<FunctionBundle> {
  // A fresh directory, as SST's build has: files of an earlier build (other hashes) would stay beside the new ones.
  await rm(outdir, { recursive: true, force: true });
  await mkdir(outdir, { recursive: true });
  const result = await build({
    entryPoints: { [name]: entry },
    outdir,
    entryNames: '[name]',
    chunkNames: 'chunks/[name]-[hash]',
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    target: 'node22',
    format: 'esm',
    mainFields: ['module', 'main'],
    minify: true,
    keepNames: true,
    splitting: options.splitting ?? false,
    external: ['sharp', 'pg-native', ...(options.external ?? [])],
    banner: { js: "import { createRequire as topLevelCreateRequire } from 'module';const require = topLevelCreateRequire(import.meta.url);" },
    metafile: true,
    logLevel: 'silent',
    write: true,
  });
  const outputs = Object.entries(result.metafile.outputs).filter(([path]) => path.endsWith('.mjs'));
  const file = join(outdir, `${name}.mjs`);
  if (options.splitting && options.mergeInit !== false) await mergeInitChunks(file);
  const entryOutput = outputs.find(([path]) => path.endsWith(`/${name}.mjs`) || path === `${name}.mjs`);
  return {
    file,
    bytes: outputs.reduce((sum, [, output]) => sum + output.bytes, 0),
    entryBytes: entryOutput?.[1].bytes ?? 0,
    metafile: result.metafile,
  };
}

const root = join(import.meta.dirname, '..');

/** The functions Zero deploys, by the name of their bundle. */
export const FUNCTIONS = { api: join(root, 'functions', 'api.ts') } as const;

/**
 * The yardstick: a streaming Hono handler that constructs the Anthropic SDK
 * and the two AWS clients, and nothing of Zero. Zero's API bundle must not be
 * bigger, nor initialise slower.
 */
const BASELINE_SOURCE = `
import { Hono } from 'hono';
import { streamHandle } from 'hono/aws-lambda';
import Anthropic from '@anthropic-ai/sdk';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';

const anthropic = new Anthropic({ apiKey: process.env.ANTHROPIC_API_KEY ?? 'unset' });
const db = new DynamoDBClient({});
const s3 = new S3Client({});
const app = new Hono().get('/health', (c) => c.json({ ok: Boolean(anthropic && db && s3) }));
export const handler = streamHandle(app);
`;

/** Where bundles are written: inside node_modules so that the baseline's entry resolves packages. */
export const BUNDLE_DIR = join(root, 'node_modules', '.cache', 'zero-bundles');

export async function bundleBaseline(outdir = join(BUNDLE_DIR, 'baseline'), options: BundleOptions = {}): Promise<FunctionBundle> {
  await mkdir(outdir, { recursive: true });
  const entry = join(outdir, 'entry.ts');
  await writeFile(entry, BASELINE_SOURCE);
  return bundleFunction(entry, join(outdir, 'out'), 'baseline', options);
}

export async function bundleApi(outdir = join(BUNDLE_DIR, 'api'), options: BundleOptions = {}): Promise<FunctionBundle> {
  return bundleFunction(FUNCTIONS.api, outdir, 'api', { splitting: true, ...options });
}

/** The output files a cold start loads: the entry and the chunks it imports statically, not those behind `import()`. */
export function initialOutputs(bundle: FunctionBundle): string[] {
  const outputs = bundle.metafile.outputs;
  const key = (file: string) => Object.keys(outputs).find((path) => resolve(path) === resolve(file));
  const seen = new Set<string>();
  const visit = (path: string | undefined) => {
    if (!path || seen.has(path)) return;
    seen.add(path);
    for (const imported of outputs[path]!.imports) if (imported.kind === 'import-statement' && !imported.external) visit(key(imported.path) ?? imported.path);
  };
  visit(key(bundle.file));
  return [...seen];
}

/** Bytes a cold start loads before the first request. */
export function initialBytes(bundle: FunctionBundle): number {
  return initialOutputs(bundle).reduce((sum, path) => sum + (bundle.metafile.outputs[path]?.bytes ?? 0), 0);
}

/** Source files (as esbuild names them) that a cold start loads. */
export function initialInputs(bundle: FunctionBundle): string[] {
  return initialOutputs(bundle).flatMap((path) => Object.keys(bundle.metafile.outputs[path]!.inputs));
}
