import { randomUUID } from 'node:crypto';
import { requireAgent } from '@zero/agent/definitions/catalog';
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

/** Opens a session owned by `user`, after checking the agent (404 listing the agents). */
export async function openSession(deps: Pick<SessionRunnerDeps, 'catalog' | 'sessions' | 'defaultAgentId' | 'onSessionCreated'>, user: User, fields: NewSession): Promise<SessionMeta> {
  const agent = await requireAgent(deps.catalog, fields.agent_id ?? deps.defaultAgentId);
  return createOwnedSession(deps, user, { ...fields, agent_id: agent.id });
}

/**
 * Opens a session owned by `user` for an agent the caller has already checked (`requireAgent`):
 * writes the session and its owner, then tells `onSessionCreated`. `freshId`: the id of a session the
 * caller named none for (a new UUID by default), for a caller that needs it before the session is written.
 */
export async function createOwnedSession(
  deps: Pick<SessionRunnerDeps, 'sessions' | 'onSessionCreated'>,
  user: User,
  fields: NewSession & { agent_id: string },
  freshId: string = randomUUID(),
): Promise<SessionMeta> {
  const now = new Date().toISOString();
  const meta = {
    session_id: fields.session_id ?? freshId,
    title: fields.title,
    agent_id: fields.agent_id,
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
