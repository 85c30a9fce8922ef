import { ZeroError } from '../errors';
import { sessionIdSchema } from '../wire';
import type { Member, Role, SessionMeta } from '../store/records';
import type { SessionStore } from '../store/session-store';

/** Who is asking: from an API key or a verified JWT. */
export interface User {
  id: string;
  name?: string;
}

const RANK: Record<Role, number> = { viewer: 1, editor: 2, owner: 3 };

/** True when `role` is `needed` or stronger (owner > editor > viewer). */
export function roleAtLeast(role: Role | undefined, needed: Role): boolean {
  return role !== undefined && RANK[role] >= RANK[needed];
}

/** The weakest of some roles; undefined when one of them is missing (or there are none). */
export function weakestRole(roles: readonly (Role | undefined)[]): Role | undefined {
  if (roles.length === 0 || roles.includes(undefined)) return undefined;
  return (roles as Role[]).reduce((a, b) => (RANK[b] < RANK[a] ? b : a));
}

/** "an editor", "a viewer", "an owner". */
export function withArticle(role: Role): string {
  return `${role === 'viewer' ? 'a' : 'an'} ${role}`;
}

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
  if (!id.success) throw new ZeroError('invalid_request', `session_id: ${id.error.issues[0]?.message}`, 400, { field: 'session_id' });
  const [session, member] = await Promise.all([sessions.getSession(sessionId), sessions.getMember(sessionId, user.id)]);
  if (!session || !member) throw new ZeroError('session_not_found', `session "${sessionId}" does not exist`, 404, { field: 'session_id' });
  if (!roleAtLeast(member.role, role)) {
    throw new ZeroError('forbidden', `this needs the ${role} role; you are ${withArticle(member.role)} of this session`, 403);
  }
  return { session, member };
}
