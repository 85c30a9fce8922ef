import { randomUUID } from 'node:crypto';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import type { AgentDefinition } from '@zero/agent/definitions/definition';
import type { AuthUser } from '@zero/runtime/auth/authenticator';
import type { ChatDeps } from '@zero/runtime/sessions/start-chat';
import { getMalcontentTool, getProjectSummaryTool, getSecretsTool, getVulnerabilitiesTool } from '@zero/runtime/tools/analysis-findings';
import { getAgentInfoTool } from '@zero/runtime/tools/get-agent-info';
import { getAnalysisTool } from '@zero/runtime/tools/get-analysis';
import { globTool } from '@zero/runtime/tools/glob';
import { grepTool } from '@zero/runtime/tools/grep';
import { listProjectsTool } from '@zero/runtime/tools/list-projects';
import { readFileTool } from '@zero/runtime/tools/read-file';
import { ToolRegistry } from '@zero/agent/tools/registry';
import { toolServices, type ApprovalAnswer, type ApprovalRequest, type ToolContext, type ToolSpec } from '@zero/runtime/tools/tool';
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
  get_agent_info: getAgentInfoTool,
} as const;

/**
 * The design's web and execution tools, by the name the deployment registers them under:
 * listed only when the deployment has them (its own implementation: its outbound guard, its
 * command mode and sandbox). web_search is not here: the model provider runs it inside a model
 * call, so there is nothing Zero could run for an MCP caller (ask_<agent> reaches it).
 */
const ACTION_TOOLS = ['web_fetch', 'run_command', 'bash'] as const;

/** Without a conversation there is no default project: over MCP every project tool names one. */
const projectInput = projectIdSchema.describe('The project, "owner/repo"; list_projects shows the projects you can see.');

/**
 * The same tool over MCP: the deployment's implementation (a test or a
 * deployment may have replaced a built-in), under its MCP name, with
 * `project_id` required where the tool reads a project.
 */
function asMcpTool(name: string, tool: ToolSpec<any>): ToolSpec<any> {
  const input = tool.input as z.ZodObject;
  const takesProject = 'project_id' in input.shape;
  return { ...tool, name, input: takesProject ? input.extend({ project_id: projectInput }) : input };
}

/**
 * The input as a client writes it, for the MCP SDK to list and check: a field the tool
 * transforms (run_command's command line into argv) as its string. The SDK passes what it
 * checked to the handler, and the registry parses it once, transform and all.
 */
function asWritten(input: z.ZodObject): z.ZodObject {
  const written = Object.entries(input.shape).flatMap(([key, field]) => (field instanceof z.ZodPipe && field.out instanceof z.ZodTransform ? [[key, field.in]] : []));
  return written.length ? input.extend(Object.fromEntries(written)) : input;
}

/**
 * An `ask` over MCP: nobody can be asked while the call waits (the client holds a request open,
 * and a stateless server keeps nothing between requests), so the call is refused, naming the policy.
 */
async function refuseAsk(request: ApprovalRequest): Promise<ApprovalAnswer> {
  return {
    decision: 'deny',
    by: "Zero's MCP server",
    message:
      `the permission policy asks a person to approve it first (${request.policy}), and a call over MCP cannot wait for an approval. ` +
      'Ask an agent (ask_<agent>) to do it in a session, where a person can approve the call, or have the policy changed',
  };
}

/**
 * Registers the project, web and command tools, run as the caller: each call
 * goes through a registry of its own (input parsing, timeout, output cap,
 * error results) under the deployment's permission policy (a denied tool is
 * refused; one the policy would ask a person about is refused too, naming the
 * policy), with the caller's project access standing in for a session's: a
 * caller reaches exactly the projects the project API shows them. Commands run
 * in the deployment's sandbox over a scratch copy of the named project made for
 * this one call, as an agent's run_command and bash do; like theirs, a change
 * to the copy is never saved to the project.
 */
export function registerProjectTools(server: McpServer, deps: ChatDeps, caller: AuthUser) {
  const tools = [
    ...Object.entries(PROJECT_TOOLS).map(([name, builtin]) => asMcpTool(name, deps.tools.get(builtin.name) ?? builtin)),
    ...ACTION_TOOLS.flatMap((name) => {
      const tool = deps.tools.get(name);
      return tool ? [asMcpTool(name, tool)] : [];
    }),
  ];
  const registry = new ToolRegistry(tools, { policy: deps.tools.policy });
  const projectAccess = callerAccess(deps.projectAccess, caller);
  // The caller in an agent's place: granted these tools, no agent rules of its own, and (for get_agent_info) free to ask any agent, as delegate_agent lets them.
  const agent = async () => {
    const { agents } = await deps.catalog.load();
    return { id: `mcp:${caller.id}`, tools: tools.map((t) => t.name), delegation: [...agents.keys()].map((agent_id) => ({ agent_id })) } as unknown as AgentDefinition;
  };

  for (const tool of tools) {
    const annotations: ToolAnnotations = { readOnlyHint: tool.readOnly === true, openWorldHint: tool.name === 'web_fetch' };
    server.registerTool(tool.name, { description: tool.description, inputSchema: asWritten(tool.input as z.ZodObject), annotations }, async (input: unknown, extra) => {
      // A call id of its own: JSON-RPC request ids repeat across clients, and a command's scratch copy is keyed by it.
      const callId = `mcp_${randomUUID()}`;
      const context: ToolContext = {
        ...toolServices(deps),
        projectAccess,
        // No session: the caller's access answers the tools' session-scoped checks, and no session overrides apply.
        sessionId: `mcp:${caller.id}`,
        runId: callId,
        toolCallId: callId,
        idempotencyKey: callId,
        agent: await agent(),
        signal: extra.signal,
        permissionOverrides: async () => undefined,
        requestApproval: refuseAsk,
      };
      const result = await registry.execute(tool.name, input, context, { timeoutMs: deps.limits.toolTimeoutMs, maxOutputChars: deps.limits.maxToolOutputChars });
      return { content: [{ type: 'text' as const, text: result.content }], ...(result.is_error ? { isError: true } : {}) };
    });
  }
}
