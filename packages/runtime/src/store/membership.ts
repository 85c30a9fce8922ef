import { ZeroError } from '@zero/agent/errors';
import type { Role } from './items/fields';
import type { ItemKey } from './stored-item';
import type { Table } from './table';

/** What `changeRoleKeepingAnOwner` needs of a group (a session, a project). */
export interface Membership<M extends { user_id: string; role: Role }> {
  table: Table;
  members: () => Promise<M[]>;
  key: (userId: string) => ItemKey;
  /** Writes a member's item again (the compensating write). */
  restore: (member: M) => Promise<void>;
  notMember: (userId: string) => ZeroError;
  lastOwner: () => ZeroError;
}

/**
 * Changes a member's role or removes them (`undefined`), refusing to leave
 * the group without an owner. The owner count is checked, then the change is
 * written conditionally on the role read, so two owners demoting each other
 * at once cannot both succeed; if concurrent changes still left no owner,
 * this member is restored and the change refused.
 */
export async function changeRoleKeepingAnOwner<M extends { user_id: string; role: Role }>(
  group: Membership<M>,
  userId: string,
  role: Role | undefined,
): Promise<void> {
  const members = await group.members();
  const current = members.find((m) => m.user_id === userId);
  if (!current) throw group.notMember(userId);
  const demotesAnOwner = current.role === 'owner' && role !== 'owner';
  if (demotesAnOwner && members.filter((m) => m.role === 'owner').length <= 1) throw group.lastOwner();
  const unchanged = { expression: '#r = :r', names: { '#r': 'role' }, values: { ':r': current.role } };
  const written =
    role === undefined
      ? await group.table.delete(group.key(userId), unchanged)
      : (await group.table.update(group.key(userId), { set: 'SET #r = :new', condition: unchanged.expression, names: unchanged.names, values: { ...unchanged.values, ':new': role } })) !== undefined;
  if (!written) throw new ZeroError('conflict', 'the membership changed meanwhile; try again');
  if (demotesAnOwner && !(await group.members()).some((m) => m.role === 'owner')) {
    await group.restore(current);
    throw group.lastOwner();
  }
}
