import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import * as z from 'zod';
import type { AgentDefinition } from '@zero/agent/definitions/definition';
import type { AuthUser } from '@zero/runtime/auth/authenticator';
import type { ChatDeps } from '@zero/runtime/sessions/start-chat';
import { getMalcontentTool, getProjectSummaryTool, getSecretsTool, getVulnerabilitiesTool } from '@zero/runtime/tools/analysis-findings';
import { getAnalysisTool } from '@zero/runtime/tools/get-analysis';
import { globTool } from '@zero/runtime/tools/glob';
import { grepTool } from '@zero/runtime/tools/grep';
import { listProjectsTool } from '@zero/runtime/tools/list-projects';
import { readFileTool } from '@zero/runtime/tools/read-file';
import { ToolRegistry } from '@zero/runtime/tools/registry';
import type { ToolContext, ToolSpec } from '@zero/runtime/tools/tool';
import { projectIdSchema } from '@zero/agent/wire';
import { callerAccess } from './caller-access';

/** MCP name → the Zero tool it runs (the names the original design gave Zero's MCP tools). */
const PROJECT_TOOLS = {
  list_projects: listProjectsTool,
  read_file: readFileTool,
  search_files: grepTool,
  find_files: globTool,
  get_analysis: getAnalysisTool,
  get_project_summary: getProjectSummaryTool,
  get_vulnerabilities: getVulnerabilitiesTool,
  get_malcontent: getMalcontentTool,
  get_secrets: getSecretsTool,
} as const;

/** Without a conversation there is no default project: over MCP every project tool names one. */
const projectInput = projectIdSchema.describe('The project, "owner/repo"; list_projects shows the projects you can see.');

/**
 * The same tool over MCP: the deployment's implementation (a test or a
 * deployment may have replaced a built-in), under its MCP name, with
 * `project_id` required where the tool reads a project.
 */
function asMcpTool(name: string, builtin: ToolSpec<any>, deps: ChatDeps): ToolSpec<any> {
  const tool = deps.tools.get(builtin.name) ?? builtin;
  const input = tool.input as z.ZodObject;
  const takesProject = 'project_id' in input.shape;
  return { ...tool, name, input: takesProject ? input.extend({ project_id: projectInput }) : input };
}

/**
 * Registers the project tools, run as the caller: each call goes through a
 * registry of its own (input parsing, timeout, output cap, error results),
 * with the caller's project access standing in for a session's. These tools
 * only read, so the deployment's read-only default (allow) applies; what the
 * caller may read is decided by their project roles, as for the project API.
 */
export function registerProjectTools(server: McpServer, deps: ChatDeps, caller: AuthUser) {
  const tools = Object.entries(PROJECT_TOOLS).map(([name, builtin]) => asMcpTool(name, builtin, deps));
  const registry = new ToolRegistry(tools);
  const agent = { id: 'mcp-caller', tools: tools.map((t) => t.name) } as AgentDefinition;
  const projectAccess = callerAccess(deps.projectAccess, caller);

  for (const tool of tools) {
    server.registerTool(
      tool.name,
      { description: tool.description, inputSchema: tool.input as z.ZodObject, annotations: { readOnlyHint: true, openWorldHint: false } },
      async (input: unknown, extra) => {
        const callId = `mcp_${String(extra.requestId)}`;
        const context: ToolContext = {
          catalog: deps.catalog,
          sessions: deps.sessions,
          artifacts: deps.artifacts,
          projects: deps.projects,
          projectFiles: deps.projectFiles,
          projectAccess,
          // No session: the caller's access answers the tools' session-scoped checks, and no session overrides apply.
          sessionId: `mcp:${caller.id}`,
          runId: callId,
          toolCallId: callId,
          idempotencyKey: callId,
          agent,
          signal: extra.signal,
          permissionOverrides: async () => undefined,
        };
        const result = await registry.execute(tool.name, input, context, { timeoutMs: deps.limits.toolTimeoutMs, maxOutputChars: deps.limits.maxToolOutputChars });
        return { content: [{ type: 'text' as const, text: result.content }], ...(result.is_error ? { isError: true } : {}) };
      },
    );
  }
}
