import { relative } from 'node:path';
import { createSandbox } from '../../environments/create-sandbox';
import { DEFAULT_SANDBOX_LIMITS, SandboxUnavailableError, type Sandbox, type SandboxCommand, type SandboxLimits } from '../../environments/sandbox';
import { normalizeProjectFolder } from '../../projects/paths';
import { inProject } from '../project-scope';
import type { ToolContext, ToolOutput } from '../tool';
import type { CommandOptions } from './command-policy';
import type { ScratchCopies } from './scratch';
import type { CappedStream, ProgramOutcome } from './spawn';

/** What the model is shown of each stream (the registry caps the whole result as well). */
const SHOWN_STDOUT_CHARS = 30_000;
const SHOWN_STDERR_CHARS = 8_000;
/** Time to copy the project before the command's own clock starts. */
export const COPY_ALLOWANCE_MS = 60_000;

/**
 * Runs commands of one tool (run_command, bash) in the deployment's sandbox over the run's
 * scratch copy of the project. A copy is shared by one run's calls of both tools; a sandbox that
 * cannot run (bubblewrap missing, namespaces refused) refuses every command: nothing ever runs
 * in the server's own process.
 */
export class SandboxedCommands {
  private copies?: ScratchCopies;
  private made?: Sandbox;
  readonly limits: SandboxLimits;

  constructor(private readonly options: CommandOptions) {
    this.limits = { ...DEFAULT_SANDBOX_LIMITS, ...options.environment?.limits, ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}) };
  }

  /** The deployment's sandbox, made on first use (a tool list built at cold start runs nothing). */
  sandbox(): Sandbox {
    this.made ??= this.options.sandbox ?? createSandbox(this.options.sandboxOptions);
    return this.made;
  }

  async run(call: { command: SandboxCommand; cwd?: string; projectId?: string; audit: string[] }, context: ToolContext): Promise<ToolOutput> {
    const sandbox = this.sandbox();
    const available = await sandbox.availability();
    if (!available.ok) return refusal(available.reason);
    const { ScratchCopies, commandFolder } = await import('./scratch');
    this.copies ??= new ScratchCopies(this.options.scratchRoot);
    const copies = this.copies;
    return inProject(call.projectId, context, async (projectId) => {
      const copy = await copies.copyFor(context.projectFiles, projectId, context.runId, context.signal);
      const folder = await commandFolder(copy, call.cwd === undefined ? undefined : normalizeProjectFolder(call.cwd) || undefined);
      const where = relative(copy, folder);
      const startedAt = new Date().toISOString();
      let outcome: ProgramOutcome;
      try {
        outcome = await sandbox.run({ command: call.command, workingCopy: copy, cwd: where, limits: this.limits, network: this.options.environment?.network, signal: context.signal });
      } catch (error) {
        if (SandboxUnavailableError.isInstance(error)) return refusal(error.message);
        throw error;
      }
      await context.recordCommand?.({
        tool_use_id: context.toolCallId,
        project_id: projectId,
        started_at: startedAt,
        cwd: where || '.',
        argv: call.audit,
        exit_code: outcome.exitCode,
        ...(outcome.signal ? { signal: outcome.signal } : {}),
        ...(outcome.timedOut ? { timed_out: true } : {}),
        duration_ms: outcome.durationMs,
      });
      return { content: describeOutcome(outcome, where || '.', this.limits), is_error: outcome.startError !== undefined || outcome.timedOut };
    });
  }
}

const shared = new WeakMap<CommandOptions, SandboxedCommands>();

/** The commands of one deployment's settings: run_command and bash given the same options share a sandbox and the run's copy. */
export function commandsFor(options: CommandOptions): SandboxedCommands {
  let commands = shared.get(options);
  if (!commands) shared.set(options, (commands = new SandboxedCommands(options)));
  return commands;
}

function refusal(reason: string): ToolOutput {
  return { content: `Commands are refused on this server: ${reason}. Nothing ran (commands only ever run inside a sandbox).`, is_error: true };
}

/** The result the model reads: how the command ended, then each stream (cut, and said so, when long). */
function describeOutcome(outcome: ProgramOutcome, cwd: string, limits: SandboxLimits): string {
  if (outcome.startError) return `The program could not start: ${outcome.startError}.`;
  const ending = outcome.timedOut
    ? `timed out after ${limits.timeoutMs} ms; its sandbox and every process in it were killed`
    : outcome.exitCode === null
      ? `ended by signal ${outcome.signal}`
      : `exit code ${outcome.exitCode}`;
  const lines = [`${ending} · ${outcome.durationMs} ms · cwd ${cwd}`];
  lines.push(...stream('stdout', outcome.stdout, limits.maxStdoutBytes, SHOWN_STDOUT_CHARS));
  lines.push(...stream('stderr', outcome.stderr, limits.maxStderrBytes, SHOWN_STDERR_CHARS));
  return lines.join('\n');
}

function stream(name: string, captured: CappedStream, capBytes: number, shownChars: number): string[] {
  if (captured.bytes === 0) return [`[${name}: empty]`];
  const notes: string[] = [];
  let text = captured.text;
  if (text.length > shownChars) {
    // Head and tail: a build or test run says what went wrong at the end.
    const head = Math.floor(shownChars * 0.75);
    const tail = shownChars - head;
    notes.push(`[${name}: showing the first ${head} and last ${tail} of ${text.length} characters]`);
    text = `${text.slice(0, head)}\n[…]\n${text.slice(-tail)}`;
  }
  if (captured.truncated) notes.push(`[${name} truncated: the command wrote ${captured.bytes} bytes; only the first ${capBytes} were kept]`);
  return [`--- ${name} ---`, text.endsWith('\n') ? text.slice(0, -1) : text, ...notes];
}
