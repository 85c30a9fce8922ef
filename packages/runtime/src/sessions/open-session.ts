import { randomUUID } from 'node:crypto';
import { requireAgent } from '@zero/agent/definitions/catalog';
import type { AgentDefinition } from '@zero/agent/definitions/definition';
import type { SessionMeta } from '../store/records';
import type { User } from '../auth/roles';
import type { SessionRunnerDeps } from './runner-deps';

/** What a new session may be opened with; the agent defaults to the deployment's. */
export interface NewSession {
  session_id?: string;
  title: string;
  agent_id?: string;
  project_id?: string;
  voice_mode?: SessionMeta['voice_mode'];
  strategy?: SessionMeta['strategy'];
}

/**
 * Opens a session owned by `user`, after checking the agent (404 listing the agents). A caller that needs
 * them first may give the id for a session it named none for (`freshId`, a new UUID by default) and the
 * agent it checked already (`agent`).
 */
export async function openSession(
  deps: Pick<SessionRunnerDeps, 'catalog' | 'sessions' | 'defaultAgentId' | 'onSessionCreated'>,
  user: User,
  fields: NewSession,
  known: { freshId?: string; agent?: AgentDefinition } = {},
): Promise<SessionMeta> {
  const agent = known.agent ?? (await requireAgent(deps.catalog, fields.agent_id ?? deps.defaultAgentId));
  const freshId = known.freshId ?? randomUUID();
  const now = new Date().toISOString();
  const meta = {
    session_id: fields.session_id ?? freshId,
    title: fields.title,
    agent_id: agent.id,
    project_id: fields.project_id,
    voice_mode: fields.voice_mode,
    strategy: fields.strategy,
    created_by: user.id,
    created_at: now,
    updated_at: now,
  };
  const owner = { user_id: user.id, name: user.name };
  // An id the caller chose may be taken: the owner is written only once the session is ours.
  if (fields.session_id) {
    const session = await deps.sessions.createSession(meta, owner);
    await deps.onSessionCreated?.(session);
    return session;
  }
  // A fresh UUID is nobody's: both items are written at once.
  const [session] = await Promise.all([
    deps.sessions.createSession(meta),
    deps.sessions.putMember({ v: 1, ...meta }, { ...owner, role: 'owner', added_at: now }),
  ]);
  await deps.onSessionCreated?.(session);
  return session;
}

/** A session's title from its first message: the first line, at most 80 characters. */
export function titleFrom(message: string): string {
  const line = message.trim().split('\n')[0] ?? '';
  return line.length > 80 ? `${line.slice(0, 77)}...` : line;
}
