import type { Role } from '../store/records';

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
