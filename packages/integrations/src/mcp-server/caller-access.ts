import type { ProjectAccess, ProjectUser } from '@zero/runtime/projects/project-access';
import type { Role } from '@zero/runtime/store/records';

/**
 * The project rules with one caller in the place of a session's members. The
 * project tools ask "what may this conversation see?"; called straight over
 * MCP there is no conversation, only the caller, who sees exactly what the
 * project API shows them (a project they have no role in is "not found").
 */
export function callerAccess(access: ProjectAccess, caller: ProjectUser): ProjectAccess {
  const view = Object.create(access) as ProjectAccess;
  return Object.assign(view, {
    sessionRole: (_sessionId: string, projectId: string) => access.roleOf(caller, projectId),
    requireForSession: async (_sessionId: string, projectId: string, role: Role) => {
      await access.require(caller, projectId, role);
    },
    visibleToSession: () => access.visibleTo(caller),
  });
}
