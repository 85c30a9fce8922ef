import * as z from 'zod';
import type { Sandbox, SandboxLimits } from '../../environments/sandbox';
import { sandboxOptionsFromEnv, type SandboxOptions } from '../../environments/create-sandbox';
import type { CallPolicy } from '../tool';
import { deniedProgram, isOpaqueLauncher, programName, type ParsedCommand } from './command-line';

/**
 * `restricted`: only allowlisted programs run (others are refused);
 * `ask`: other programs ask a person first; `full`: any program runs under
 * the ordinary permission policy. The denylist applies in every mode.
 */
export const commandModeSchema = z.enum(['restricted', 'ask', 'full']);
export type CommandMode = z.infer<typeof commandModeSchema>;

/** Programs that only read (over a scratch copy at that): what `restricted` runs. */
export const DEFAULT_COMMAND_ALLOW = ['ls', 'cat', 'head', 'tail', 'grep', 'find', 'wc', 'echo', 'pwd'] as const;

/** How a deployment runs commands (`ZERO_COMMAND_MODE`, `ZERO_COMMAND_ALLOW`, `ZERO_COMMAND_TIMEOUT_MS`). */
export interface CommandOptions {
  mode?: CommandMode;
  /** Programs added to the default allowlist. */
  allow?: readonly string[];
  /** Wall time of one command, after which its whole process group is killed. Default 30 s. */
  timeoutMs?: number;
  /** Where scratch copies live; the OS temporary folder (Lambda's `/tmp`) by default. */
  scratchRoot?: string;
  /** Where commands run: by default a sandbox made from `sandboxOptions` (never the server's own process). */
  sandbox?: Sandbox;
  /** The deployment's sandbox settings (`ZERO_SANDBOX`, `ZERO_BWRAP`, `ZERO_SANDBOX_FUNCTION`). */
  sandboxOptions?: SandboxOptions;
  /** Where environments' packages are installed, one prefix folder each (the data folder's `environments/` locally; the OS temporary folder by default). */
  packagesRoot?: string;
  /** The deployment's network allowlist (empty: no network) and limits beside the defaults; a session's environment adds to and overrides them. */
  environment?: { network?: { allow: readonly string[] }; limits?: Partial<SandboxLimits> };
}

const programNameSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._+-]*$/, 'must be a program name such as "make" (no paths, no spaces)');

/** Reads the operator's command settings; throws an error naming the variable when one is malformed. */
export function commandOptionsFromEnv(env: Record<string, string | undefined>): CommandOptions {
  const options: CommandOptions = {};
  if (env.ZERO_COMMAND_MODE) {
    const mode = commandModeSchema.safeParse(env.ZERO_COMMAND_MODE);
    if (!mode.success) throw new Error(`ZERO_COMMAND_MODE must be one of restricted, ask, full; got "${env.ZERO_COMMAND_MODE}"`);
    options.mode = mode.data;
  }
  if (env.ZERO_COMMAND_ALLOW) {
    const names = env.ZERO_COMMAND_ALLOW.split(',').map((s) => s.trim()).filter(Boolean);
    for (const name of names) {
      const parsed = programNameSchema.safeParse(name);
      if (!parsed.success) throw new Error(`ZERO_COMMAND_ALLOW: "${name}" ${parsed.error.issues[0]!.message}`);
    }
    options.allow = names;
  }
  if (env.ZERO_COMMAND_TIMEOUT_MS) {
    const ms = Number(env.ZERO_COMMAND_TIMEOUT_MS);
    if (!Number.isInteger(ms) || ms <= 0) throw new Error(`ZERO_COMMAND_TIMEOUT_MS must be a positive integer (milliseconds), got "${env.ZERO_COMMAND_TIMEOUT_MS}"`);
    options.timeoutMs = ms;
  }
  options.sandboxOptions = sandboxOptionsFromEnv(env);
  return options;
}

/** The allowlist and mode of one deployment, applied to parsed commands. */
export class CommandPolicy {
  readonly mode: CommandMode;
  readonly allow: ReadonlySet<string>;

  constructor(options: CommandOptions = {}) {
    this.mode = options.mode ?? 'restricted';
    this.allow = new Set([...DEFAULT_COMMAND_ALLOW, ...(options.allow ?? [])]);
  }

  /** The first program of the command off the allowlist (a launcher whose program Zero cannot see counts as off it). */
  offList(command: ParsedCommand): string | undefined {
    const off = command.programs.find((argv) => argv[0]!.includes('/') || isOpaqueLauncher(argv[0]!) || !this.allow.has(programName(argv[0]!)));
    return off?.[0];
  }

  /** Why the command may not run in this mode at all (the denylist, or `restricted`'s allowlist), or undefined. */
  refusal(command: ParsedCommand): string | undefined {
    for (const argv of command.programs) {
      const denied = deniedProgram(argv);
      if (denied) return denied;
    }
    const off = this.mode === 'restricted' ? this.offList(command) : undefined;
    if (off !== undefined) {
      return `"${off}" is not on the command allowlist (${[...this.allow].join(', ')}); this deployment runs only those (ZERO_COMMAND_MODE=restricted). An operator can add programs with ZERO_COMMAND_ALLOW.`;
    }
    return undefined;
  }

  /** What the permission policy hears: allowlisted commands only read a scratch copy; in `ask` mode the rest ask a person. */
  callPolicy(command: ParsedCommand): CallPolicy {
    const off = this.offList(command);
    if (off === undefined) return { readOnly: true };
    if (this.mode === 'ask') return { ask: `run_command: "${off}" is not on the command allowlist (ZERO_COMMAND_MODE=ask)` };
    return {};
  }
}
