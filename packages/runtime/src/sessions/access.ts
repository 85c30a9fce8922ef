import { roleAtLeast, withArticle, type User } from '../auth/roles';
import { ZeroError, forbidden, invalidField } from '@zero/agent/errors';
import { sessionIdSchema } from '@zero/agent/wire';
import type { Member, Role, SessionMeta } from '../store/records';
import type { SessionStore } from '../store/session-store';

/**
 * Loads a session for a user who needs at least `role`. A non-member gets the
 * same 404 as for a session that does not exist, so existence is not revealed;
 * a member with too weak a role gets a 403.
 */
export async function requireAccess(
  sessions: SessionStore,
  sessionId: string,
  user: User,
  role: Role,
): Promise<{ session: SessionMeta; member: Member }> {
  // Checked before any lookup: an id DynamoDB cannot hold in a key would fail there as a 500.
  const id = sessionIdSchema.safeParse(sessionId);
  if (!id.success) throw invalidField('session_id', id.error.issues[0]?.message ?? 'invalid');
  const [session, member] = await Promise.all([sessions.getSession(sessionId), sessions.getMember(sessionId, user.id)]);
  if (!session || !member) throw new ZeroError('session_not_found', `session "${sessionId}" does not exist`, { field: 'session_id' });
  if (!roleAtLeast(member.role, role)) {
    throw forbidden(`this needs the ${role} role; you are ${withArticle(member.role)} of this session`);
  }
  return { session, member };
}
