import { randomUUID } from 'node:crypto';
import { ZeroError } from '@zero/agent/errors';
import type { User } from '../auth/roles';
import type { SessionMeta } from '../store/records';
import { requireAccess } from './access';
import type { SessionRunnerDeps } from './runner-deps';

/**
 * Forks a session at one of its history records (`atEvent`, a record's
 * `seq`): a new session whose history is the parent's up to and with that
 * record, read from the parent (nothing is copied), owned by the forker
 * alone. The forker must be able to read the parent (any member). The fork
 * keeps the parent's agent, project and strategy, and goes on by itself:
 * what either session does next the other never sees.
 */
export async function forkSession(
  deps: Pick<SessionRunnerDeps, 'sessions' | 'onSessionCreated'>,
  user: User,
  parentId: string,
  fields: { at_event: number; title?: string },
): Promise<SessionMeta> {
  const { session: parent } = await requireAccess(deps.sessions, parentId, user, 'viewer');
  const last = await deps.sessions.lastLogSeq(parentId);
  if (fields.at_event > last) throw new ZeroError('invalid_request', `at_event ${fields.at_event} is past the session's last history record (${last})`, { field: 'at_event' });
  const eventSeq = await deps.sessions.eventCutFor(parentId, fields.at_event);
  const now = new Date().toISOString();
  const session = await deps.sessions.createFork(
    {
      session_id: randomUUID(),
      title: fields.title ?? `${parent.title} (fork)`,
      agent_id: parent.agent_id,
      project_id: parent.project_id,
      voice_mode: parent.voice_mode,
      strategy: parent.strategy,
      created_by: user.id,
      created_at: now,
      updated_at: now,
    },
    { session_id: parentId, log_seq: fields.at_event, event_seq: eventSeq },
    { user_id: user.id, name: user.name },
  );
  await deps.onSessionCreated?.(session);
  return session;
}
