/** The console's view of Zero's JSON API. */

export interface Credentials {
  /** Where the API is: the page's own origin when the API serves the console. */
  baseUrl: string;
  key: string;
}

export interface Agent {
  id: string;
  name: string;
  description: string;
  default_voice?: string;
}

export interface SessionSummary {
  session_id: string;
  title: string;
  agent_id: string;
  project_id?: string;
  voice_mode?: Voice;
  updated_at: string;
  role?: string;
}

export type Voice = 'full' | 'minimal' | 'neutral';

export interface Author {
  id: string;
  name?: string;
}

/** A record of the session's log; records of delegated (child) runs carry `parent_run_id`. */
export type HistoryRecord = { parent_run_id?: string } & (
  | { kind: 'user_message'; seq: number; run_id: string; text: string; author?: Author; agent_id: string }
  | { kind: 'assistant'; seq: number; run_id: string; step: number; agent_id: string; content: ContentBlock[] }
  | { kind: 'tool_results'; seq: number; run_id: string; results: { tool_use_id: string; content: string; is_error?: boolean }[] }
  | { kind: 'tool_result'; seq: number; run_id: string; tool_use_id: string; name: string; content: string; is_error?: boolean }
  | { kind: 'run_handover' | 'void'; seq: number; run_id: string }
  | { kind: 'run_end'; seq: number; run_id: string; status: string; steps: number; usage: Usage; error?: { code: string; message: string } });

export type ContentBlock = { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: unknown } | { type: string; [k: string]: unknown };

export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
}

export interface Member {
  user_id: string;
  name?: string;
  role: string;
}

export interface SessionDetail {
  session: SessionSummary;
  role: string;
  members: Member[];
  active_run_id: string | null;
  last_event_id: string;
  queued: { run_id: string; text: string; author?: Author }[];
  history: HistoryRecord[];
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Calls the API with the signed-in key; a non-2xx answer becomes an ApiError with Zero's message. */
export async function api<T>(creds: Credentials, method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${creds.baseUrl}/api/v2${path}`, {
    method,
    headers: { authorization: `Bearer ${creds.key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) {
    const json = (await response.json().catch(() => undefined)) as { error?: { message?: string } } | undefined;
    throw new ApiError(response.status, json?.error?.message ?? `${method} ${path} answered ${response.status}`);
  }
  return (response.status === 204 ? undefined : await response.json()) as T;
}

/** The agents a session can use; also how signing in checks a key. */
export async function loadAgents(creds: Credentials): Promise<Agent[]> {
  return (await api<{ agents: Agent[] }>(creds, 'GET', '/agents')).agents;
}
