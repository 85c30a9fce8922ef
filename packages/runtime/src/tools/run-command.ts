import * as z from 'zod';
import { parseCommandLine } from './command/command-line';
import { CommandPolicy, type CommandOptions } from './command/command-policy';
import { COMMAND_CALL_TIMEOUT_MS, commandsFor } from './command/sandboxed-run';
import { projectIdInput } from './project-scope';
import { defineTool } from './tool';

/**
 * Runs one program, without a shell, in the deployment's sandbox over a per-run copy of the
 * project. The sandbox is the boundary; the mode, allowlist and denylist are the operator's policy.
 */
export function createRunCommandTool(options: CommandOptions = {}) {
  const policy = new CommandPolicy(options);
  const commands = commandsFor(options);
  const timeoutMs = commands.limits.timeoutMs;
  const allowed = [...policy.allow].join(' ');
  return defineTool({
    name: 'run_command',
    readOnly: false,
    // The sandbox stops the command at its environment's limit; this is only the registry's backstop.
    timeoutMs: COMMAND_CALL_TIMEOUT_MS,
    policySubject: (input) => input.command.argv.join(' '),
    callPolicy: (input) => policy.callPolicy(input.command),
    description:
      'Run one program in a sandbox over a scratch copy of the project, mounted at /workspace (changes to the copy are kept for the rest of this answer, never saved to the project). ' +
      "The sandbox sees only that copy, a read-only system and the environment's installed packages; no network beyond the environment's allowlist. " +
      'There is no shell: pipes, redirections, ";", "&&", "||", backticks, "$(…)", variables and globs are refused; quote arguments as in a shell ' +
      '(e.g. grep -rn \'TODO|FIXME\' src). ' +
      (policy.mode === 'restricted'
        ? `Only these programs run: ${allowed}.`
        : policy.mode === 'ask'
          ? `These run at once: ${allowed}; any other program waits for a person's approval.`
          : 'Any program on PATH may run, except the denylist (shells, sudo, disk tools).') +
      ` Stops after the environment's time limit (${Math.round(timeoutMs / 1000)} s unless it sets another). Returns the exit code, duration, stdout and stderr.`,
    input: () => z.object({
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
    execute: ({ command, cwd, project_id }, context) => commands.run({ command: { argv: command.argv }, cwd, projectId: project_id, audit: [...command.argv] }, context),
  });
}

export const runCommandTool = createRunCommandTool();
