import type { AgentDefinition } from '../definitions/definition';
import type { ToolResult } from '../tools/registry';
import type { ClientTool } from '../wire';

/**
 * Zero's tools that run commands in the server's sandbox. In a session whose environment is
 * self-hosted, commands run on the environment's worker only: these are neither offered nor run,
 * whichever agent the run has (the environment's `bash`, when the agent has it, runs the command).
 */
export const SERVER_COMMAND_TOOLS: ReadonlySet<string> = new Set(['run_command', 'bash']);

/**
 * A session's self-hosted environment: its id and its tools (the toolset's `bash`, `read`, …, each
 * standing in for Zero's tool of the same job), answered by the environment's worker.
 */
export interface RunEnvironment {
  id: string;
  tools: readonly ClientTool[];
}

/** The agent as it runs in a self-hosted environment: without Zero's command tools. */
export function withoutServerCommands(agent: AgentDefinition): AgentDefinition {
  return agent.tools.some((name) => SERVER_COMMAND_TOOLS.has(name)) ? { ...agent, tools: agent.tools.filter((name) => !SERVER_COMMAND_TOOLS.has(name)) } : agent;
}

/**
 * A message's client tools with the environment's: an environment tool takes the place of a
 * client tool of the same name (only the worker answers it), so each name is offered once.
 */
export function withEnvironmentTools(clientTools: readonly ClientTool[] | undefined, environment: RunEnvironment): ClientTool[] {
  const names = new Set(environment.tools.map((tool) => tool.name));
  return [...(clientTools ?? []).filter((tool) => !names.has(tool.name)), ...environment.tools];
}

/**
 * The answer to a delegated run's call of an environment tool. A child run cannot wait: it runs
 * inside its caller's tool call, and only a top-level run waits for a worker's result between its
 * steps. So the call is refused, saying why, and nothing runs (neither on the worker nor on the server).
 */
export function refuseInDelegatedRun(environment: RunEnvironment, name: string): ToolResult {
  return {
    content:
      `Refused: "${name}" runs in this session's self-hosted environment ${environment.id}, on its worker, and a delegated run cannot wait for a worker's result. ` +
      'Nothing ran. Say in your answer what you would have run: the agent that delegated to you can run it.',
    is_error: true,
    truncated: false,
  };
}
