import type { Http2Bindings, HttpBindings } from '@hono/node-server';

/**
 * The Node adapter's fetch, saying `Connection: close` on an answer given before the request's body
 * was read to its end (a 400 after the first bytes of an upload, a 401, 404 or 413 before any).
 * The rest of such a body would otherwise stay on a keep-alive connection, the client's next request
 * queued behind it, unanswered until the adapter gives up draining and drops the connection. The
 * client opens a new connection instead. Lambda's function URLs end every request's body themselves, and HTTP/2 streams end on their own.
 */
export function closeOnUnreadBody(fetch: (request: Request, env: HttpBindings | Http2Bindings) => Response | Promise<Response>) {
  return async (request: Request, env: HttpBindings | Http2Bindings): Promise<Response> => {
    const response = await fetch(request, env);
    const { incoming, outgoing } = env;
    // HTTP/2 has no Connection header: a stream ends by itself.
    if (incoming.httpVersionMajor >= 2) return response;
    const hasBody = Number(incoming.headers['content-length'] ?? 0) > 0 || incoming.headers['transfer-encoding'] !== undefined;
    if (hasBody && !incoming.readableEnded && !outgoing.headersSent) outgoing.setHeader('connection', 'close');
    return response;
  };
}
