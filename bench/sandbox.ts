/**
 * Command start latency per kind of environment: `true` (and `echo`) run N times unsandboxed
 * (spawn, as run_command did before sandboxes), in the `local` sandbox (bubblewrap) and through the
 * `lambda` kind's handler in-process (unpack a small working copy into a wiped root, run, diff;
 * Lambda's invoke and cold start are not included), bare and confined as deployed (under
 * sandbox-exec, built here by scripts/build-sandbox-exec.sh). Prints p50 and p99. Run with
 * `npm run bench:sandbox` (BENCH_RUNS sets N, default 200).
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_SANDBOX_LIMITS } from '@zero/runtime/environments/sandbox';
import { LocalSandbox } from '@zero/runtime/environments/local/bubblewrap';
import { runSandboxEvent } from '@zero/runtime/environments/lambda/handler';
import { packTree } from '@zero/runtime/environments/lambda/wire';
import { runProgram } from '@zero/runtime/environments/spawn';
import { ms, percentile, table } from './support/stats';

const RUNS = Number(process.env.BENCH_RUNS ?? 200);

async function timed(run: () => Promise<{ exitCode: number | null } | unknown>): Promise<number[]> {
  const samples: number[] = [];
  // A few warm-up runs (page cache, the sandbox's probe) before measuring.
  for (let i = 0; i < 5; i++) await run();
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    await run();
    samples.push(performance.now() - started);
  }
  return samples;
}

async function main() {
  const copy = await mkdtemp(join(tmpdir(), 'zero-bench-sandbox-'));
  const lambdaRoot = await mkdtemp(join(tmpdir(), 'zero-bench-lambda-'));
  for (let i = 0; i < 20; i++) await writeFile(join(copy, `file-${i}.txt`), `line ${i}\n`.repeat(100));
  const limits = DEFAULT_SANDBOX_LIMITS;
  const sandbox = new LocalSandbox();
  const available = await sandbox.availability();
  if (!available.ok) throw new Error(`the local sandbox is unavailable: ${available.reason}`);
  const archive = (await packTree(copy)).toString('base64');
  const confine = join(execFileSync(join(import.meta.dirname, '..', 'scripts', 'build-sandbox-exec.sh'), { encoding: 'utf8' }).trim(), 'sandbox-exec');
  const rows: (string | number)[][] = [];
  for (const [name, argv] of [
    ['true', ['true']],
    ['echo hello', ['echo', 'hello']],
  ] as [string, [string, ...string[]]][]) {
    const spawnLimits = { timeoutMs: limits.timeoutMs, maxStdoutBytes: limits.maxStdoutBytes, maxStderrBytes: limits.maxStderrBytes };
    const plain = await timed(() => runProgram(argv, { cwd: copy, env: { PATH: '/usr/bin:/bin' }, limits: spawnLimits }));
    const local = await timed(() => sandbox.run({ command: { argv }, workingCopy: copy, limits }));
    const lambda = await timed(() => runSandboxEvent({ command: { argv }, limits, archive }, { root: lambdaRoot }));
    const confined = await timed(() => runSandboxEvent({ command: { argv }, limits, archive }, { root: lambdaRoot, confine }));
    for (const [kind, samples] of [
      ['unsandboxed spawn', plain],
      ['local (bubblewrap)', local],
      ['lambda handler, in-process', lambda],
      ['lambda handler, in-process, sandbox-exec', confined],
    ] as const) {
      rows.push([name, kind, ms(percentile(samples, 50)), ms(percentile(samples, 99))]);
    }
  }
  console.log(table(`Command start latency, ${RUNS} runs each (ms; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')})`, ['command', 'kind', 'p50', 'p99'], rows));
  await rm(copy, { recursive: true, force: true });
  await rm(lambdaRoot, { recursive: true, force: true });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
