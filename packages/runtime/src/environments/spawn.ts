import { spawn } from 'node:child_process';

/** What a program left behind: its streams (cut at their caps), exit code or signal, and how long it ran. */
export interface ProgramOutcome {
  stdout: CappedStream;
  stderr: CappedStream;
  /** null when a signal ended it (or it never started). */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  durationMs: number;
  timedOut: boolean;
  /** Set when the program could not be started (e.g. not found on PATH). */
  startError?: string;
}

export interface CappedStream {
  text: string;
  /** Every byte the program wrote to the stream, kept or not. */
  bytes: number;
  truncated: boolean;
}

export interface SpawnLimits {
  timeoutMs: number;
  maxStdoutBytes: number;
  maxStderrBytes: number;
}

/** After the program exits, how long its streams may stay open (a child it left holding them is killed with its group). */
const DRAIN_MS = 1_000;

/**
 * Runs a program without a shell (argv as given, like execFile) in its own
 * process group, so that on timeout or abort the whole group — children it
 * started included — is killed. Never throws: a program that cannot start is
 * an outcome with `startError`.
 */
export function runProgram(
  argv: readonly [string, ...string[]],
  options: { cwd: string; env: Record<string, string>; limits: SpawnLimits; signal?: AbortSignal },
): Promise<ProgramOutcome> {
  const started = Date.now();
  const stdout = capture(options.limits.maxStdoutBytes);
  const stderr = capture(options.limits.maxStderrBytes);
  return new Promise((resolve) => {
    let timedOut = false;
    let settled = false;
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(argv[0], argv.slice(1), { cwd: options.cwd, env: options.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'], shell: false });
    } catch (error) {
      // Thrown before any process exists (E2BIG: arguments over the kernel's limit).
      resolve({ stdout: stdout.result(), stderr: stderr.result(), exitCode: null, signal: null, durationMs: Date.now() - started, timedOut: false, startError: (error as Error).message });
      return;
    }
    const killGroup = () => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // The group is gone already.
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, options.limits.timeoutMs);
    const onAbort = () => killGroup();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout!.on('data', stdout.push);
    child.stderr!.on('data', stderr.push);
    const finish = (exitCode: number | null, signal: NodeJS.Signals | null, startError?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      resolve({
        stdout: stdout.result(),
        stderr: stderr.result(),
        exitCode,
        signal,
        durationMs: Date.now() - started,
        timedOut,
        ...(startError ? { startError } : {}),
      });
    };
    child.on('error', (error: NodeJS.ErrnoException) => {
      const why = error.code === 'ENOENT' ? `"${argv[0]}" was not found on PATH` : error.message;
      finish(null, null, why);
    });
    child.on('exit', (code, signal) => {
      // What the program started in the background must not outlive it.
      killGroup();
      const drained = setTimeout(() => {
        child.stdout!.destroy();
        child.stderr!.destroy();
        finish(code, signal);
      }, DRAIN_MS);
      child.on('close', () => {
        clearTimeout(drained);
        finish(code, signal);
      });
    });
  });
}

/** Keeps the first `max` bytes of a stream and counts the rest. */
function capture(max: number) {
  const chunks: Buffer[] = [];
  let kept = 0;
  let bytes = 0;
  return {
    push: (chunk: Buffer) => {
      bytes += chunk.byteLength;
      if (kept >= max) return;
      const part = chunk.byteLength > max - kept ? chunk.subarray(0, max - kept) : chunk;
      chunks.push(part);
      kept += part.byteLength;
    },
    result: (): CappedStream => ({ text: Buffer.concat(chunks).toString('utf8'), bytes, truncated: bytes > kept }),
  };
}
