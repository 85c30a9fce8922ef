import { Hono } from 'hono';
import * as z from 'zod';
import { MAX_BODY_BYTES } from '@zero/agent/wire';
import { requireUser } from '../auth';
import { describe, sizeGuard } from '../declare';
import type { AppDeps, Env } from '../env';
import { FIRST_FLUSH_PADDING } from '../sse';

/** One JSON-RPC 2.0 message, as MCP's Streamable HTTP transport carries them. */
const jsonRpcMessageSchema = z.looseObject({ jsonrpc: z.literal('2.0') });

/** The MCP server and its SDK load with the first `/mcp` request, never at the API's cold start. */
const mcpServer = () => import('@zero/integrations/mcp-server');

/**
 * A function URL holds back a response's first small writes: the padding
 * comment goes out first on an SSE answer, so progress notifications reach the
 * client as they are sent (SSE parsers ignore comments).
 */
function flushedAtOnce(response: Response): Response {
  if (!response.body || !response.headers.get('content-type')?.includes('text/event-stream')) return response;
  const padding = new TextEncoder().encode(FIRST_FLUSH_PADDING);
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      controller.enqueue(padding);
      const reader = response.body!.getReader();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          controller.enqueue(value);
        }
        controller.close();
      } catch (error) {
        controller.error(error);
      }
    },
  });
  return new Response(body, { status: response.status, headers: response.headers });
}

/** The refusal of a method a stateless server does not serve, as the MCP SDK words it. */
const notAllowed = (method: string) =>
  new Response(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: `Method not allowed: ${method} /mcp needs a session, and Zero's MCP server is stateless; send each message with POST.` }, id: null }), {
    status: 405,
    headers: { 'content-type': 'application/json', allow: 'POST' },
  });

/**
 * `/mcp`: Zero as an MCP server over Streamable HTTP, stateless (any instance
 * answers any request), authenticated like the API. GET (a server-to-client
 * stream) and DELETE (ending a session) concern sessions, which a stateless
 * server has none of: 405, as the transport specification allows.
 */
export function mcpRoutes(deps: AppDeps) {
  const app = new Hono<Env>();
  app.use('/mcp', requireUser(deps));
  app.post(
    '/mcp',
    describe({ summary: 'MCP (Streamable HTTP, stateless): one JSON-RPC message; a request is answered as JSON-RPC over SSE', responses: { 200: jsonRpcMessageSchema, 202: null }, events: jsonRpcMessageSchema }),
    sizeGuard(MAX_BODY_BYTES),
    async (c) => {
      const { handleMcpRequest } = await mcpServer();
      return flushedAtOnce(await handleMcpRequest(deps, c.req.raw, c.get('user'), { deadline: c.get('deadline') }));
    },
  );
  app.get('/mcp', describe({ summary: 'MCP: no server-to-client stream without a session (405)', responses: { 405: jsonRpcMessageSchema } }), () => notAllowed('GET'));
  app.delete('/mcp', describe({ summary: 'MCP: no session to end (405)', responses: { 405: jsonRpcMessageSchema } }), () => notAllowed('DELETE'));
  return app;
}
