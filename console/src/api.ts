import type * as z from 'zod';
import { agentListSchema, errorResponseSchema, type AgentInfo } from '@zero/agent/wire';

/** The console's side of Zero's JSON API; every shape is the wire's (`@zero/core/wire`). */

export interface Credentials {
  /** Where the API is: the page's own origin when the API serves the console. */
  baseUrl: string;
  key: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Told when the server refuses the signed-in key (401): it was revoked, or the server's development key changed. */
const keyRefusals = new EventTarget();

/** Calls `listener` whenever any request of the console's is refused for its key; returns the unsubscribe. */
export function onKeyRefused(listener: () => void): () => void {
  keyRefusals.addEventListener('refused', listener);
  return () => keyRefusals.removeEventListener('refused', listener);
}

/** `fetch` for every request that carries the key: a 401 is announced, so the console can return to sign-in. */
export const keyFetch: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  if (response.status === 401) keyRefusals.dispatchEvent(new Event('refused'));
  return response;
};

/**
 * Calls the API with the signed-in key; a non-2xx answer becomes an ApiError
 * with Zero's message. With a schema, the answer is parsed by it.
 */
export async function api<S extends z.ZodType = z.ZodUnknown>(
  creds: Credentials,
  method: string,
  path: string,
  body?: unknown,
  schema?: S,
  headers: Record<string, string> = {},
): Promise<z.output<S>> {
  const response = await keyFetch(`${creds.baseUrl}/api/v2${path}`, {
    method,
    headers: { authorization: `Bearer ${creds.key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) {
    const refusal = errorResponseSchema.safeParse(await response.json().catch(() => undefined));
    throw new ApiError(response.status, refusal.success ? refusal.data.error.message : `${method} ${path} answered ${response.status}`);
  }
  const json: unknown = response.status === 204 ? undefined : await response.json();
  return (schema ? schema.parse(json) : json) as z.output<S>;
}

/** The agents a session can use; also how signing in checks a key. */
export async function loadAgents(creds: Credentials): Promise<AgentInfo[]> {
  return (await api(creds, 'GET', '/agents', undefined, agentListSchema)).agents;
}
