/**
 * grep over a 5,000-file / 50 MB project in s3rver: cold and warm latency and
 * S3 requests per call. Run with `npx tsx bench/grep.ts`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ArtifactStore } from '@zero/runtime/store/artifact-store';
import { ProjectFileCache } from '@zero/runtime/projects/file-cache';
import { ProjectStore } from '@zero/runtime/projects/project-store';
import { ToolRegistry } from '@zero/agent/tools/registry';
import { createS3Client } from '@zero/runtime/store/clients';
import { grepTool } from '@zero/runtime/tools/grep';
import { globTool } from '@zero/runtime/tools/glob';
import type { ToolContext } from '@zero/runtime/tools/tool';
import { startLocalStack } from '../local/stack';
import { countS3Requests } from './support/s3-requests';

const FILES = Number(process.env.BENCH_FILES ?? 5_000);
const FILE_BYTES = 10 * 1024;
const PROJECT = 'bench/monorepo';

function fileBody(i: number): Buffer {
  const lines: string[] = [];
  let size = 0;
  for (let n = 0; size < FILE_BYTES; n++) {
    const line = i % 250 === 0 && n === 7 ? `import { vulnerable } from 'left-pad-${i}'; // TODO(security)` : `export const value_${i}_${n} = compute(${n}, "${'abcdefghij'.repeat(3)}");`;
    lines.push(line);
    size += line.length + 1;
  }
  return Buffer.from(lines.join('\n').slice(0, FILE_BYTES));
}

async function main() {
  const cacheDir = await mkdtemp(join(tmpdir(), 'zero-bench-cache-'));
  const stack = await startLocalStack();
  const s3 = createS3Client(stack.store);
  const counts = countS3Requests(s3);
  const projects = new ProjectStore(new ArtifactStore(s3, stack.store.bucket));
  const files = Array.from({ length: FILES }, (_, i) => ({ path: `packages/p${Math.floor(i / 100)}/src/file${i}.ts`, body: fileBody(i) }));
  const totalBytes = files.reduce((n, f) => n + f.body.byteLength, 0);
  let t = performance.now();
  await projects.putFiles(PROJECT, files, { concurrency: 32, upload: true });
  console.log(`seeded ${FILES} files, ${(totalBytes / 1e6).toFixed(1)} MB in ${((performance.now() - t) / 1000).toFixed(1)} s`);

  const cache = new ProjectFileCache(projects, { root: cacheDir });
  const registry = new ToolRegistry([grepTool, globTool]);
  // The bench measures the scan, not the access check: its session may use every project.
  const projectAccess = { requireForSession: async () => undefined };
  const context = { agent: { id: 'bench', tools: ['grep', 'glob'] }, projectId: PROJECT, projects, projectFiles: cache, projectAccess, signal: new AbortController().signal } as unknown as ToolContext;
  const call = async (label: string, tool: string, input: Record<string, unknown>) => {
    counts.clear();
    t = performance.now();
    const result = await registry.execute(tool, input, context, { timeoutMs: 120_000, maxOutputChars: 50_000 });
    const ms = performance.now() - t;
    const requests = [...counts].map(([k, v]) => `${k}×${v}`).join(', ') || 'none';
    const lines = result.content.split('\n').length;
    console.log(`${label.padEnd(34)} ${ms.toFixed(0).padStart(6)} ms   S3 requests: ${requests}   (${lines} result lines${result.is_error ? `, ERROR: ${result.content.slice(0, 300)}` : ''})`);
  };
  await call('grep cold (empty /tmp cache)', 'grep', { pattern: 'TODO\\(security\\)' });
  await call('grep warm', 'grep', { pattern: 'TODO\\(security\\)' });
  await call('grep warm, content mode', 'grep', { pattern: 'left-pad-\\d+', output_mode: 'content' });
  await call('grep warm, case-insensitive, no hits', 'grep', { pattern: 'NO_SUCH_TOKEN_ANYWHERE', case_insensitive: true });
  await call('glob warm', 'glob', { pattern: '**/file4999.ts' });
  await projects.putFiles(PROJECT, [{ path: 'packages/p0/src/file0.ts', body: Buffer.from('// TODO(security) changed\n') }]);
  await call('grep after 1 file changed', 'grep', { pattern: 'TODO\\(security\\)' });
  await call('grep warm again', 'grep', { pattern: 'TODO\\(security\\)' });

  s3.destroy();
  await stack.stop();
  await rm(cacheDir, { recursive: true, force: true });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
