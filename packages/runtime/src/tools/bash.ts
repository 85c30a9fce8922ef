import * as z from 'zod';
import type { CommandOptions } from './command/command-policy';
import { COMMAND_CALL_TIMEOUT_MS, commandsFor } from './command/sandboxed-run';
import { projectIdInput } from './project-scope';
import { defineTool } from './tool';

/**
 * A real shell (bash) in the deployment's sandbox over the run's copy of the project: Claude
 * Code's Bash, the Managed Agents toolset's bash. The sandbox is the boundary, so the script is
 * not parsed; under `ZERO_COMMAND_MODE` restricted or ask every call asks a person (a script can
 * run any program), under `full` the deployment's side-effect policy decides.
 */
export function createBashTool(options: CommandOptions = {}) {
  const mode = options.mode ?? 'restricted';
  const commands = commandsFor(options);
  const timeoutMs = commands.limits.timeoutMs;
  return defineTool({
    name: 'bash',
    readOnly: false,
    // The sandbox stops the command at its environment's limit; this is only the registry's backstop.
    timeoutMs: COMMAND_CALL_TIMEOUT_MS,
    policySubject: (input) => input.command,
    callPolicy: () => (mode === 'full' ? undefined : { ask: `bash runs a shell script, which may run any program (ZERO_COMMAND_MODE=${mode})` }),
    description:
      'Run a bash script in a sandbox over a scratch copy of the project, mounted at /workspace (the working folder and HOME). ' +
      'Pipes, redirections and every shell feature work; changes to the copy are kept for the rest of this answer (run_command and bash share it), never saved to the project. ' +
      "The sandbox sees only that copy (with the session's repositories in it), a read-only system, the environment's installed packages and an empty /tmp; no network beyond the environment's allowlist. " +
      `Stops after the environment's time limit (${Math.round(timeoutMs / 1000)} s unless it sets another), killing everything it started. ` +
      'Returns the exit code, duration, stdout and stderr.',
    input: () => z.object({
      command: z.string().min(1).max(100_000).describe('The script, e.g. "npm test 2>&1 | tail -40".'),
      cwd: z.string().max(1024).optional().describe('Folder to run in, relative to the project root. Default: the root.'),
      project_id: projectIdInput,
    }),
    execute: ({ command, cwd, project_id }, context) => commands.run({ command: { script: command }, cwd, projectId: project_id, audit: ['bash', '-c', command] }, context),
  });
}

export const bashTool = createBashTool();
