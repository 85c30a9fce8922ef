import { ZeroError } from '../errors';
import type { Member, Role, SessionMeta } from '../store/records';
import type { SessionStore } from '../store/session-store';

/** Who is asking: from an API key or a verified JWT. */
export interface User {
  id: string;
  name?: string;
}

const RANK: Record<Role, number> = { viewer: 1, editor: 2, owner: 3 };

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
  const [session, member] = await Promise.all([sessions.getSession(sessionId), sessions.getMember(sessionId, user.id)]);
  if (!session || !member) throw new ZeroError('session_not_found', `session "${sessionId}" does not exist`, 404, { field: 'session_id' });
  if (RANK[member.role] < RANK[role]) {
    throw new ZeroError('forbidden', `this needs the ${role} role; you are a ${member.role} of this session`, 403);
  }
  return { session, member };
}
