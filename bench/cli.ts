/**
 * The zero CLI's latency as a person feels it: from Enter to the first
 * character of the answer on screen, against a local Zero (the fake model
 * answering at once; dynalite and s3rver as in the end-to-end tests).
 *
 * - startup: `zero --version`, a fresh process, to its exit;
 * - one-shot: `zero agent -q …` as a fresh process, from spawn to the first byte of stdout;
 * - REPL: `zero agent` in a real terminal (tmux), from the Enter key to the answer's first
 *   character in the pane (polled every few ms, so a few ms coarse).
 *
 * Run alone with `npx tsx bench/cli.ts` (`CLI_BENCH_N` samples each, default 15); `npm run bench` runs it too.
 */
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { cliEnv, ZERO_BIN } from '../tests/support/cli';
import { DEV_KEY, startHarness } from '../tests/support/harness';
import { Terminal } from '../tests/support/tmux';
import { ms, percentile, table } from './support/stats';

export interface CliLatencyResult {
  samples: number;
  startup_p50_ms: number;
  one_shot_first_char_p50_ms: number;
  one_shot_first_char_p90_ms: number;
  repl_first_char_p50_ms?: number;
  repl_first_char_p90_ms?: number;
}

/** Measures the CLI against a harness of its own (a local Zero on loopback). */
export async function cliLatency(n = 15): Promise<CliLatencyResult> {
  const h = await startHarness();
  try {
    const env = cliEnv({ ZERO_URL: h.url, ZERO_KEY: DEV_KEY });
    // The first run builds the bundle if the sources changed; it is not a sample.
    spawnSync(process.execPath, [ZERO_BIN, '--version'], { env });
    const startup: number[] = [];
    for (let i = 0; i < n; i++) {
      const started = performance.now();
      spawnSync(process.execPath, [ZERO_BIN, '--version'], { env });
      startup.push(performance.now() - started);
    }
    const oneShot: number[] = [];
    for (let i = 0; i < n; i++) {
      h.fake.script({ text: 'Ready.' });
      oneShot.push(await firstByte([ZERO_BIN, 'agent', '--agent', 'tester', '-q', 'Are you there?'], env));
    }
    const repl = hasTmux() ? await replFirstChar(h, n) : [];
    return {
      samples: n,
      startup_p50_ms: percentile(startup, 50),
      one_shot_first_char_p50_ms: percentile(oneShot, 50),
      one_shot_first_char_p90_ms: percentile(oneShot, 90),
      ...(repl.length ? { repl_first_char_p50_ms: percentile(repl, 50), repl_first_char_p90_ms: percentile(repl, 90) } : {}),
    };
  } finally {
    await h.close();
  }
}

function firstByte(args: string[], env: Record<string, string | undefined>): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'ignore'] });
  return new Promise((resolve, reject) => {
    let at: number | undefined;
    child.stdout.once('data', () => (at = performance.now() - started));
    child.on('close', (code) => (code === 0 && at !== undefined ? resolve(at) : reject(new Error(`zero exited with ${code}`))));
  });
}

async function replFirstChar(h: Awaited<ReturnType<typeof startHarness>>, n: number): Promise<number[]> {
  const env = { ...cliEnv({ ZERO_URL: h.url, ZERO_KEY: DEV_KEY, TERM: 'xterm-256color' }), NO_COLOR: undefined };
  const terminal = new Terminal([process.execPath, ZERO_BIN, 'agent', '--agent', 'tester'], env);
  const samples: number[] = [];
  try {
    await terminal.waitFor((s) => s.includes('›'));
    for (let i = 0; i < n; i++) {
      const marker = `Answer${i}.`;
      h.fake.script({ text: marker });
      terminal.type(`question ${i}`);
      await terminal.waitFor((s) => s.trimEnd().endsWith(`question ${i}`));
      const started = performance.now();
      terminal.press('Enter');
      // The answer's first character: the line after the question gets its first letter.
      while (!terminal.screen().includes(`question ${i}\nA`)) await new Promise((r) => setTimeout(r, 2));
      samples.push(performance.now() - started);
      await terminal.waitFor((s) => s.includes(marker) && s.trimEnd().endsWith('›'));
    }
  } finally {
    terminal.close();
  }
  return samples;
}

const hasTmux = () => spawnSync('tmux', ['-V']).status === 0;

export function printCliLatency(r: CliLatencyResult): string {
  return table(`The zero CLI against a local Zero (${r.samples} samples each)`, ['figure', 'p50', 'p90'], [
    ['startup: zero --version, a fresh process', ms(r.startup_p50_ms, 0), '–'],
    ['one-shot: spawn to the first byte of the answer', ms(r.one_shot_first_char_p50_ms, 0), ms(r.one_shot_first_char_p90_ms, 0)],
    ['REPL: Enter to the first character on screen (tmux)', r.repl_first_char_p50_ms === undefined ? 'no tmux' : ms(r.repl_first_char_p50_ms, 0), ms(r.repl_first_char_p90_ms ?? NaN, 0)],
  ]);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.env.NODE_NO_WARNINGS = '1';
  console.log(printCliLatency(await cliLatency(Number(process.env.CLI_BENCH_N ?? 15))));
  process.exit(0);
}
