import { relative } from 'node:path';
import * as z from 'zod';
import { normalizeProjectFolder } from '../projects/paths';
import { parseCommandLine } from './command/command-line';
import { CommandPolicy, type CommandOptions } from './command/command-policy';
import type { ScratchCopies } from './command/scratch';
import type { CappedStream, ProgramOutcome } from './command/spawn';
import { inProject, projectIdInput } from './project-scope';
import { defineTool } from './tool';

const DEFAULT_TIMEOUT_MS = 30_000;
const MAX_STDOUT_BYTES = 10 * 1024 * 1024;
const MAX_STDERR_BYTES = 1024 * 1024;
/** What the model is shown of each stream (the registry caps the whole result as well). */
const SHOWN_STDOUT_CHARS = 30_000;
const SHOWN_STDERR_CHARS = 8_000;
/** Time to copy the project before the command's own clock starts. */
const COPY_ALLOWANCE_MS = 60_000;

/**
 * The environment a command gets, and nothing more: PATH, HOME (the project
 * copy) and LANG. Never the process's own, which holds the function's AWS
 * credentials, the Anthropic key and every ZERO_* secret.
 */
function commandEnvironment(home: string): Record<string, string> {
  return { PATH: process.env.PATH || '/usr/local/bin:/usr/bin:/bin', HOME: home, LANG: 'C.UTF-8' };
}

/** Runs one program over a per-run copy of the project, without a shell, under the deployment's command mode. */
export function createRunCommandTool(options: CommandOptions = {}) {
  const policy = new CommandPolicy(options);
  // The copying and spawning code loads with the first command, not at cold start.
  let copies: ScratchCopies | undefined;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const allowed = [...policy.allow].join(' ');
  return defineTool({
    name: 'run_command',
    readOnly: false,
    timeoutMs: timeoutMs + COPY_ALLOWANCE_MS,
    policySubject: (input) => input.command.argv.join(' '),
    callPolicy: (input) => policy.callPolicy(input.command),
    description:
      'Run one program over a scratch copy of the project (changes to the copy are kept for the rest of this answer, never saved to the project). ' +
      'There is no shell: pipes, redirections, ";", "&&", "||", backticks, "$(…)", variables and globs are refused; quote arguments as in a shell ' +
      '(e.g. grep -rn \'TODO|FIXME\' src). Every path must stay inside the copy. ' +
      (policy.mode === 'restricted'
        ? `Only these programs run: ${allowed}.`
        : policy.mode === 'ask'
          ? `These run at once: ${allowed}; any other program waits for a person's approval.`
          : 'Any program on PATH may run, except the denylist (shells, sudo, disk tools).') +
      ` Stops after ${Math.round(timeoutMs / 1000)} s. Returns the exit code, duration, stdout and stderr.`,
    input: z.object({
      command: z
        .string()
        .min(1)
        .max(10_000)
        .describe('The command line, e.g. "grep -rn useState src" or "find . -name \'*.json\'".')
        .transform((line, ctx) => {
          const parsed = parseCommandLine(line);
          const refused = parsed.ok ? policy.refusal(parsed.command) : parsed.error;
          if (refused !== undefined || !parsed.ok) {
            ctx.addIssue({ code: 'custom', message: refused ?? 'refused' });
            return z.NEVER;
          }
          return parsed.command;
        }),
      cwd: z.string().max(1024).optional().describe('Folder to run in, relative to the project root. Default: the root.'),
      project_id: projectIdInput,
    }),
    async execute({ command, cwd, project_id }, context) {
      const [{ ScratchCopies, commandFolder, confineArguments }, { runProgram }] = await Promise.all([import('./command/scratch'), import('./command/spawn')]);
      copies ??= new ScratchCopies(options.scratchRoot);
      const scratch = copies;
      return inProject(project_id, context, async (projectId) => {
        const copy = await scratch.copyFor(context.projectFiles, projectId, context.runId, context.signal);
        const folder = await commandFolder(copy, cwd === undefined ? undefined : normalizeProjectFolder(cwd) || undefined);
        for (const argv of command.programs) await confineArguments(copy, folder, argv);
        const startedAt = new Date().toISOString();
        const outcome = await runProgram(command.argv, {
          cwd: folder,
          env: commandEnvironment(copy),
          limits: { timeoutMs, maxStdoutBytes: MAX_STDOUT_BYTES, maxStderrBytes: MAX_STDERR_BYTES },
          signal: context.signal,
        });
        const where = relative(copy, folder) || '.';
        await context.recordCommand?.({
          tool_use_id: context.toolCallId,
          project_id: projectId,
          started_at: startedAt,
          cwd: where,
          argv: [...command.argv],
          exit_code: outcome.exitCode,
          ...(outcome.signal ? { signal: outcome.signal } : {}),
          ...(outcome.timedOut ? { timed_out: true } : {}),
          duration_ms: outcome.durationMs,
        });
        return { content: describeOutcome(outcome, where, timeoutMs), is_error: outcome.startError !== undefined || outcome.timedOut };
      });
    },
  });
}

export const runCommandTool = createRunCommandTool();

/** The result the model reads: how the program ended, then each stream (cut, and said so, when long). */
function describeOutcome(outcome: ProgramOutcome, cwd: string, timeoutMs: number): string {
  if (outcome.startError) return `The program could not start: ${outcome.startError}.`;
  const ending = outcome.timedOut
    ? `timed out after ${timeoutMs} ms; its process group was killed`
    : outcome.exitCode === null
      ? `ended by signal ${outcome.signal}`
      : `exit code ${outcome.exitCode}`;
  const lines = [`${ending} · ${outcome.durationMs} ms · cwd ${cwd}`];
  lines.push(...stream('stdout', outcome.stdout, MAX_STDOUT_BYTES, SHOWN_STDOUT_CHARS));
  lines.push(...stream('stderr', outcome.stderr, MAX_STDERR_BYTES, SHOWN_STDERR_CHARS));
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
  if (captured.truncated) notes.push(`[${name} truncated: the program wrote ${captured.bytes} bytes; only the first ${capBytes} were kept]`);
  return [`--- ${name} ---`, text.endsWith('\n') ? text.slice(0, -1) : text, ...notes];
}
