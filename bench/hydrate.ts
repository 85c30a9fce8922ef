/**
 * Hydrating a 5,000-file repository from (a fake) GitHub into s3rver: time and
 * S3 requests the first time, then after a one-file change (only that file is
 * written). Run with `npx tsx bench/hydrate.ts` (BENCH_FILES to change the size).
 */
import { ArtifactStore } from '@zero/runtime/store/artifact-store';
import { ProjectStore } from '@zero/runtime/projects/project-store';
import { createS3Client } from '@zero/runtime/store/clients';
import { DEFAULT_HYDRATE_LIMITS, GitHubClient, hydrateProject } from '@zero/integrations/github';
import { startLocalStack } from '../local/stack';
import { FakeGitHub } from '../tests/support/fake-github';
import { countS3Requests } from './support/s3-requests';

const FILES = Number(process.env.BENCH_FILES ?? 5_000);
const FILE_BYTES = 2 * 1024;

async function main() {
  const stack = await startLocalStack();
  const gh = await new FakeGitHub().start();
  const s3 = createS3Client(stack.store);
  const counts = countS3Requests(s3);
  const projects = new ProjectStore(new ArtifactStore(s3, stack.store.bucket));
  const client = new GitHubClient(gh.issueToken(), { apiUrl: gh.url, allow: ['127.0.0.1'] });

  const tree: Record<string, string> = {};
  for (let i = 0; i < FILES; i++) tree[`packages/p${Math.floor(i / 100)}/src/file${i}.ts`] = `// file ${i}\n${'export const x = 1;\n'.repeat(FILE_BYTES / 20)}`;
  gh.addRepo('bench/monorepo');

  const run = async (label: string) => {
    counts.clear();
    gh.reset();
    const t = performance.now();
    const result = await hydrateProject(projects, client, { projectId: 'bench/monorepo', repo: 'bench/monorepo', ref: 'main' }, DEFAULT_HYDRATE_LIMITS);
    const ms = performance.now() - t;
    const requests = [...counts.values()].reduce((n, c) => n + c, 0);
    const byCommand = [...counts].map(([name, n]) => `${name.replace('Command', '')} ${n}`).join(', ');
    console.log(`${label}: ${(ms / 1000).toFixed(2)} s, ${result.uploaded} written, ${result.unchanged} unchanged, ${result.removed} removed; S3 requests ${requests} (${byCommand})`);
  };

  gh.commit('bench/monorepo', 'main', tree);
  await run(`first hydrate, ${FILES} files`);
  gh.commit('bench/monorepo', 'main', { ...tree, 'packages/p0/src/file0.ts': '// changed\n' });
  await run('after a one-file change');
  await run('same commit again');

  await gh.stop();
  await stack.stop();
}

await main();
