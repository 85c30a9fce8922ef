import * as z from 'zod';
import { defineErrorClass } from '@zero/agent/errors';
import type { ProgramOutcome } from './spawn';

export type { ProgramOutcome, CappedStream } from './spawn';

/**
 * What one command may use. Every limit applies to the command and everything it starts:
 * `timeoutMs` is wall time, after which the whole sandbox is killed; `memoryBytes` is each
 * process's address space; `processes` the processes and threads alive at once; `diskBytes`
 * the largest file it may write (and the size of its private `/tmp`); `cpuSeconds` each
 * process's CPU time; the stream caps are the bytes of stdout and stderr kept.
 */
export const sandboxLimitsSchema = z.object({
  timeoutMs: z.number().int().positive().max(15 * 60_000),
  memoryBytes: z.number().int().min(64 * 1024 * 1024),
  processes: z.number().int().min(4).max(4096),
  diskBytes: z.number().int().min(1024 * 1024),
  cpuSeconds: z.number().int().positive(),
  maxStdoutBytes: z.number().int().positive(),
  maxStderrBytes: z.number().int().positive(),
});
export type SandboxLimits = z.infer<typeof sandboxLimitsSchema>;

/** The limits a command gets unless its environment says otherwise. */
export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = {
  timeoutMs: 30_000,
  memoryBytes: 2 * 1024 ** 3,
  processes: 256,
  diskBytes: 512 * 1024 ** 2,
  cpuSeconds: 60,
  maxStdoutBytes: 10 * 1024 * 1024,
  maxStderrBytes: 1024 * 1024,
};

/**
 * How an environment runs commands: its kind, the hosts its network may reach (none by default:
 * the network is off) and its limits. Environment records supply these; a deployment without
 * any uses the defaults (`local`, network off, `DEFAULT_SANDBOX_LIMITS`).
 */
export const sandboxSettingsSchema = z.object({
  kind: z.enum(['local', 'lambda']),
  network: z.object({ allow: z.array(z.string().min(1).max(255)).max(100) }).default({ allow: [] }),
  limits: sandboxLimitsSchema.partial().default({}),
});
export type SandboxSettings = z.infer<typeof sandboxSettingsSchema>;

/** One command for a sandbox: a program and its arguments (no shell), or a script run by bash. */
export type SandboxCommand = { argv: readonly [string, ...string[]] } | { script: string };

export interface SandboxRunSpec {
  command: SandboxCommand;
  /** The run's working copy on the host: the only files the command sees, read-write, at `/workspace`. */
  workingCopy: string;
  /** The folder to run in, relative to the working copy ("" or undefined: its root). Checked by the caller. */
  cwd?: string;
  /** Variables the tool gives the command; the sandbox adds PATH, HOME (/workspace) and LANG, and nothing of its own process. */
  env?: Record<string, string>;
  limits: SandboxLimits;
  /**
   * Hosts the command may reach (through the outbound guard): `host`, `host:port`, `*.domain` (its
   * subdomains) or `*` (any host the guard allows); empty or absent: no network at all.
   */
  network?: { allow: readonly string[] };
  /** The environment's installed packages (a host folder), mounted read-only at `/opt/zero-env` with its programs first on PATH. */
  packagesDir?: string;
  /** Aborting kills the sandbox and everything in it. */
  signal?: AbortSignal;
}

/** Whether a sandbox can run commands here, and if not, why (said at start-up and in every refusal). */
export type SandboxAvailability = { ok: true; detail: string } | { ok: false; reason: string };

/**
 * The execution boundary every kind of environment implements: a command sees its working copy
 * and a read-only system, nothing of the server (files, environment, `/proc`, network, other
 * sessions), and dies with everything it started. `run` never runs a command unsandboxed: where
 * the sandbox is unavailable it throws SandboxUnavailableError; otherwise it does not throw.
 */
export interface Sandbox {
  readonly kind: SandboxSettings['kind'];
  availability(): Promise<SandboxAvailability>;
  run(spec: SandboxRunSpec): Promise<ProgramOutcome>;
}

/** The sandbox cannot run commands (bubblewrap missing, namespaces refused, the sandbox function unreachable). */
export class SandboxUnavailableError extends defineErrorClass('SandboxUnavailableError') {}
