import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { AuthUser } from '@zero/runtime/auth/authenticator';
import type { ChatDeps } from '@zero/runtime/sessions/start-chat';
import { registerAgentTools, type AskOptions } from './ask-agent';
import { registerProjectTools } from './project-tools';
import { registerResources } from './resources';

/** How Zero names itself to MCP clients. */
export const MCP_SERVER_INFO = { name: 'zero', version: '2.0.0' };

/**
 * Zero as an MCP server for one caller: the project, web and command tools and
 * the resources scoped to what they may see, and an `ask_<agent>` tool per agent
 * beside `delegate_agent`.
 */
export async function createMcpServer(deps: ChatDeps, caller: AuthUser, options: AskOptions = {}): Promise<McpServer> {
  const server = new McpServer(MCP_SERVER_INFO, {
    capabilities: { resources: {}, logging: {} },
    instructions:
      'Zero runs Claude agents over the projects you can see. list_projects, read_file, search_files, find_files and get_analysis read a project directly; ' +
      'web_fetch reads a web page; run_command and bash run in a sandbox over a scratch copy of a project (never saved back); ' +
      'ask_<agent> and delegate_agent run an agent in a Zero session as you and answer with the session id (pass it back to continue the conversation); get_agent_info describes the agents.',
  });
  registerProjectTools(server, deps, caller);
  const { agents } = await deps.catalog.load();
  registerAgentTools(server, deps, caller, [...agents.values()].sort((a, b) => a.id.localeCompare(b.id)), options);
  registerResources(server.server, deps, caller);
  return server;
}

/**
 * Answers one request to `/mcp` with the Streamable HTTP transport, stateless:
 * a new server and transport per request, no session id, nothing kept in
 * the process between requests, so any instance answers any request. A POST
 * carries one JSON-RPC message; a request's answer (and its progress
 * notifications) stream back as SSE on the POST's own response.
 */
export async function handleMcpRequest(deps: ChatDeps, request: Request, caller: AuthUser, options: AskOptions & { parsedBody?: unknown } = {}): Promise<Response> {
  const server = await createMcpServer(deps, caller, options);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  await server.connect(transport);
  const response = await transport.handleRequest(request, options.parsedBody === undefined ? {} : { parsedBody: options.parsedBody });
  if (!response.body) {
    await server.close();
    return response;
  }
  // The server and transport end with the response's body (or when the client leaves it).
  const closing = new TransformStream<Uint8Array, Uint8Array>({ flush: () => void server.close().catch(() => undefined) });
  return new Response(response.body.pipeThrough(closing), { status: response.status, statusText: response.statusText, headers: response.headers });
}
