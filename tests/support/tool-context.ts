import type { AgentDefinition } from '@zero/agent/definitions/definition';
import type { Runtime } from '../../functions/create-runtime';
import type { ToolContext } from '@zero/runtime/tools/tool';

/** What a tool call needs to run outside a run: one session, one call, an agent granted `tools`. */
export function toolContext(rt: Runtime, call: { sessionId: string; projectId: string; tools: string[] }): ToolContext {
  const runId = `run_${call.sessionId}`;
  const toolCallId = `toolu_${call.sessionId}`;
  return {
    sessionId: call.sessionId,
    runId,
    toolCallId,
    idempotencyKey: `${runId}:${toolCallId}`,
    projectId: call.projectId,
    // The registry runs only granted tools.
    agent: { id: 'tester', tools: call.tools } as AgentDefinition,
    catalog: rt.catalog,
    sessions: rt.sessions,
    artifacts: rt.artifacts,
    projects: rt.projects,
    projectFiles: rt.projectFiles,
    projectAccess: rt.projectAccess,
    // As a run does: the session's overrides (here read at each call).
    permissionOverrides: async () => (await rt.sessions.getPermissions(call.sessionId))?.permissions,
    signal: new AbortController().signal,
  };
}
