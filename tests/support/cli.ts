import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The `zero` binary, as `npm link` or `npx zero` runs it. */
export const ZERO_BIN = join(import.meta.dirname, '..', '..', 'packages', 'cli', 'bin', 'zero.mjs');

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** An environment for the CLI with its own config file (nothing of the machine's ~/.config) and no keyring. */
export function cliEnv(extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  const home = mkdtempSync(join(tmpdir(), 'zero-cli-'));
  const { ZERO_URL: _url, ZERO_KEY: _key, ZERO_PROFILE: _profile, ...env } = process.env;
  // No title call after a session's first exchange (the fake model's scripts answer the runs' own calls).
  // No system keyring unless a test brings one (ZERO_KEYRING: ''): the machine's own stays untouched.
  return { ...env, HOME: home, ZERO_CONFIG: join(home, 'config.json'), NO_COLOR: '1', NODE_NO_WARNINGS: '1', ZERO_KEYRING: 'off', ZERO_SESSION_TITLES: 'off', ...extra };
}

/** Runs `zero …` as a child process; `input` is written to its stdin (closed either way). */
export function runCli(args: string[], options: { env?: Record<string, string | undefined>; input?: string; timeoutMs?: number } = {}): Promise<CliRun> {
  const started = performance.now();
  const child = spawn(process.execPath, [ZERO_BIN, ...args], { env: options.env ?? cliEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  child.stdin.end(options.input ?? '');
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 20_000);
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: performance.now() - started });
    }),
  );
}
