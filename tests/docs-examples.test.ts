import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeAnthropic, type FakeTurn } from './support/fake-anthropic';
import { brokenLinks, docFiles, expectedLines, parseBlocks, talksToZero, unmatched, type DocBlock } from './support/docs-examples';

/**
 * Every command and request in README.md and docs/ that runs against a local Zero is run here, against
 * a server started as `npm start` starts it (local/start.ts: dynalite and s3rver on disk, the agents/
 * folder of the repository) with a fake Anthropic model, and its output is compared with what the docs
 * show. The conventions are in docs/contributing.md ("Documentation examples").
 */

const root = join(import.meta.dirname, '..');
const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const KEY = 'zdev_docs_examples_key_0001';
const FAKE_TEXT = 'Hello from the fake model.';
/** Secrets the webhook and subscription examples name, in the server's environment and the examples' shell (docs/contributing.md). */
const SECRETS = {
  ZERO_WEBHOOK_SECRET_GITHUB: 'change me to a long random string',
  ZERO_WEBHOOK_SECRET_OPS: 'change me to a long random string',
  ZERO_WEBHOOK_SECRET_EVENTS: 'whsec_ZG9jcyBleGFtcGxlcyBzZWNyZXQgb2YgMzIgYnl0ZXMh',
  ZERO_MCP_SECRET_GITHUB: 'github_pat_docs_examples',
};

/** A `<!-- model: -->` turn: the fake's turn, and optionally a text the conversation's first message must contain. */
type ScriptedTurn = FakeTurn & { for?: string };

const files = docFiles(root);
const blocks = files.flatMap((file) => parseBlocks(root, file));
const runnable = blocks.filter((block) => block.mark === 'run');

describe('the examples in the docs', () => {
  it('mark every block that talks to a Zero as run or skip (with a reason)', () => {
    const unmarked = blocks.filter((block) => talksToZero(block) && block.mark !== 'run' && block.mark !== 'skip').map((block) => `${block.file}:${block.line}`);
    expect(unmarked).toEqual([]);
    expect(blocks.filter((block) => block.mark === 'skip' && !block.reason?.trim())).toEqual([]);
    expect(runnable.filter((block) => !['sh', 'bash', 'shell', 'ts'].includes(block.lang)).map((block) => `${block.file}:${block.line}`)).toEqual([]);
  });

  it('link only to files and headings that exist', () => {
    expect(files.flatMap((file) => brokenLinks(root, file))).toEqual([]);
  });

  describe('against a local Zero', () => {
    const model = new FakeAnthropic();
    let zero: ChildProcess;
    let url = '';
    let work = '';
    let stdout = '';

    beforeAll(async () => {
      await model.start();
      model.respondWith(() => ({ text: FAKE_TEXT }));
      work = mkdtempSync(join(tmpdir(), 'zero-docs-'));
      mkdirSync(join(work, 'bin'));
      // `zero` on the PATH, as `npm link` puts it there.
      writeFileSync(join(work, 'bin', 'zero'), `#!/bin/sh\nexec "${process.execPath}" "${join(root, 'packages', 'cli', 'bin', 'zero.mjs')}" "$@"\n`);
      chmodSync(join(work, 'bin', 'zero'), 0o755);
      const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(ZERO_|ANTHROPIC_|AWS_|PORT$|HOST$|NODE_OPTIONS$|VITEST)/.test(name)));
      zero = spawn(process.execPath, ['--import', tsx, join(root, 'local', 'start.ts')], {
        cwd: root,
        env: { ...env, ...SECRETS, PORT: '0', ZERO_DATA_DIR: join(work, 'data'), ZERO_DEV_KEY: KEY, ANTHROPIC_API_KEY: 'sk-ant-docs-examples', ANTHROPIC_BASE_URL: model.url },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      zero.stderr!.on('data', (chunk) => (stderr += chunk));
      url = await new Promise<string>((resolve, reject) => {
        zero.stdout!.on('data', (chunk) => {
          stdout += chunk;
          const match = /Zero is listening on (\S+)/.exec(stdout);
          if (match) resolve(match[1]!);
        });
        zero.once('exit', (code) => reject(new Error(`Zero exited with ${code}: ${stderr}`)));
      });
    }, 60_000);

    afterAll(async () => {
      if (zero && zero.exitCode === null) {
        const exited = new Promise((resolve) => zero.once('exit', resolve));
        zero.kill('SIGTERM');
        await exited;
      }
      await model.stop();
      if (work) rmSync(work, { recursive: true, force: true });
    });

    it('has examples to run', () => {
      expect(runnable.length).toBeGreaterThan(0);
    });

    // One shell per file, its blocks in order (a block may use what an earlier one set), in a folder of its own.
    for (const file of files) {
      const own = runnable.filter((block) => block.file === file);
      if (own.length === 0) continue;
      it(`${file}: ${own.length} example(s) run and print what the page shows`, async () => {
        // A page's scripted turns go, in order, to the requests they fit: a turn with `for` only to a
        // conversation whose first message contains it. Anything else gets the default text.
        const turns = own.flatMap((block) => (block.model ?? []) as ScriptedTurn[]);
        model.reset();
        model.respondWith((request) => {
          const first = JSON.stringify(request.body.messages[0] ?? '');
          const index = turns.findIndex((turn) => turn.for === undefined || first.includes(turn.for));
          if (index < 0) return { text: FAKE_TEXT };
          const { for: _, ...turn } = turns.splice(index, 1)[0]!;
          return turn;
        });
        const outputs = await runFile(own, { url, key: KEY, work, file });
        // Runs the page started in the background (a webhook's, one resumed by a decision) end before the next page.
        await untilNoRunsInProgress(url);
        for (const [i, block] of own.entries()) {
          const where = `${block.file}:${block.line}`;
          const result = outputs[i];
          expect(result, `${where} did not run (an earlier block of the page failed)`).toBeDefined();
          expect(result!.code, `${where} failed (exit ${result!.code}):\n${block.code}\n--- output ---\n${result!.output}`).toBe(0);
          expect(unmatched(result!.output, expectedLines(block)), `${where} printed:\n${result!.output}`).toEqual([]);
        }
      }, 30_000);
    }
  });
});

/** Runs a page's blocks in one bash, each block's output and exit code kept apart. */
async function runFile(own: DocBlock[], { url, key, work, file }: { url: string; key: string; work: string; file: string }) {
  const dir = join(work, file.replace(/[^\w.-]+/g, '_'));
  mkdirSync(dir, { recursive: true });
  const marker = (i: number) => `@@docs-example-${i}@@`;
  // curl fails on an HTTP error unless the block shows the status itself (-i), which its expected output then checks.
  const prelude = [
    'exec 2>&1',
    'set -euo pipefail',
    // (A block that passes -f/--fail itself keeps it.)
    'curl() { local fail=--fail-with-body a; for a in "$@"; do case $a in -i|--include|--fail|-[!-]*f*) fail= ;; esac; done; command curl --no-progress-meter $fail "$@"; }',
  ];
  const script = [
    ...prelude,
    ...own.flatMap((block, i) => [`printf '\\n${marker(i)}\\n'`, block.lang === 'ts' ? tsProgram(block, i, file) : block.code]),
    `printf '\\n${marker(own.length)}\\n'`,
  ].join('\n');
  const child = spawn('bash', ['-c', script], {
    cwd: dir,
    env: {
      PATH: `${join(work, 'bin')}:${process.env.PATH}`,
      HOME: dir,
      LANG: 'C.UTF-8',
      ZERO_URL: url,
      ZERO_KEY: key,
      ...SECRETS,
      ZERO_CONFIG: join(dir, 'zero-config.json'),
      ZERO_KEYRING: 'off',
      NO_COLOR: '1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    // A page that hangs (a stream that never ends) is ended before the test's own timeout.
    timeout: 25_000,
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const code = await new Promise<number>((resolve) => child.once('exit', (status) => resolve(status ?? 1)));
  const results: { code: number; output: string }[] = [];
  for (let i = 0; i < own.length; i++) {
    const start = output.indexOf(`${marker(i)}\n`);
    if (start < 0) break;
    const end = output.indexOf(`\n${marker(i + 1)}\n`, start);
    const text = output.slice(start + marker(i).length + 1, end < 0 ? undefined : end);
    // A long SSE padding comment would hide the rest of a failure's message.
    results.push({ code: end < 0 ? code || 1 : 0, output: text.replace(/ {40,}/g, ' … ') });
  }
  return results;
}

/** Waits until the kill switch's list of runs in progress (`GET /api/v2/admin/runs`) is empty. */
async function untilNoRunsInProgress(url: string) {
  for (let i = 0; i < 200; i++) {
    const response = await fetch(`${url}/api/v2/admin/runs`, { headers: { authorization: `Bearer ${KEY}` } });
    const { runs } = (await response.json()) as { runs: unknown[] };
    if (runs.length === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('runs the examples started were still in progress after 20 s');
}

/**
 * The shell line that runs a TypeScript example: the block is written beside the repository's
 * node_modules (so its imports resolve as in a project that installed them) and run with tsx.
 */
function tsProgram(block: DocBlock, i: number, file: string): string {
  const dir = join(root, 'node_modules', '.cache', 'docs-examples');
  mkdirSync(dir, { recursive: true });
  const program = join(dir, `${file.replace(/[^\w.-]+/g, '_')}-${i}.mts`);
  writeFileSync(program, block.code);
  return `"${process.execPath}" --import "${tsx}" "${program}"`;
}
