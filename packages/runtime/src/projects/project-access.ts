import { conflict, forbidden, notFound } from '@zero/agent/errors';
import { roleAtLeast, weakestRole, withArticle } from '../auth/roles';
import type { ProjectMemberStore } from '../store/project-member-store';
import type { Role } from '../store/records';
import type { ReportOwnerStore } from '../store/report-owner-store';
import type { SessionStore } from '../store/session-store';
import type { ProjectStore } from './project-store';

/** A verified caller of the project routes. */
export interface ProjectUser {
  id: string;
  name?: string;
  /** Administrators are owners of every project. */
  admin: boolean;
}

/** Projects someone may see: all of them (an administrator), or these, by id. */
export type VisibleProjects = 'all' | Map<string, Role>;

const projectNotFound = (projectId: string) => notFound(`project "${projectId}" does not exist`, 'project_id');

/**
 * Who may do what with a project, checked where the data is read and written:
 * by the project routes for a user, and by the file tools for a session.
 *
 * - A user's role comes from their membership item; administrators own every project.
 * - The first user to write a project that nobody has claimed and that does
 *   not exist becomes its owner; an owner (or an administrator) adds members.
 * - A session's tools have the weakest role among the session's members:
 *   whatever a tool reads, every member of the session sees.
 * - A report belongs to the session that wrote it: only that session's
 *   members read it, only that session writes it again.
 */
export class ProjectAccess {
  constructor(
    readonly members: ProjectMemberStore,
    readonly reports: ReportOwnerStore,
    private readonly sessions: SessionStore,
    private readonly projects: ProjectStore,
    private readonly isAdmin: (userId: string) => boolean,
  ) {}

  /** A user's role in a project, or undefined when they have none. */
  async roleOf(user: ProjectUser, projectId: string): Promise<Role | undefined> {
    if (user.admin) return 'owner';
    return (await this.members.getMember(projectId, user.id))?.role;
  }

  /**
   * Requires at least `role`. Without any role the answer is the same 404 as
   * for a project that does not exist, so existence is not revealed; with too
   * weak a role, a 403.
   */
  async require(user: ProjectUser, projectId: string, role: Role): Promise<Role> {
    const has = await this.roleOf(user, projectId);
    if (!has) throw projectNotFound(projectId);
    if (!roleAtLeast(has, role)) throw forbidden(`this needs the ${role} role; you are ${withArticle(has)} of project "${projectId}"`);
    return has;
  }

  /** Before a write that may create the project: its first writer becomes its owner; anyone else needs the editor role. */
  async requireWriter(user: ProjectUser, projectId: string): Promise<Role> {
    const claimable = !(await this.members.getClaim(projectId)) && !(await this.projects.getProject(projectId));
    if (claimable && (await this.members.claim(projectId, user))) return 'owner';
    return this.require(user, projectId, 'editor');
  }

  /** The projects a user may see. */
  async visibleTo(user: ProjectUser): Promise<VisibleProjects> {
    if (user.admin) return 'all';
    return new Map((await this.members.listProjectsOf(user.id)).map((m) => [m.project_id, m.role]));
  }

  // --- a session's tools --------------------------------------------------------------------

  /** The role a session's tools have in a project: the weakest among the session's members. */
  async sessionRole(sessionId: string, projectId: string): Promise<Role | undefined> {
    const members = await this.sessions.listMembers(sessionId);
    const roles = await Promise.all(
      members.map(async (m) => (this.isAdmin(m.user_id) ? 'owner' : (await this.members.getMember(projectId, m.user_id))?.role)),
    );
    return weakestRole(roles);
  }

  /** Requires the session's tools to have `role` in the project; the errors are phrased for the model. */
  async requireForSession(sessionId: string, projectId: string, role: Role): Promise<void> {
    const has = await this.sessionRole(sessionId, projectId);
    if (!has) {
      throw notFound(`project "${projectId}" does not exist or is not shared with everyone in this conversation. list_projects shows the projects you can use.`, 'project_id');
    }
    if (!roleAtLeast(has, role)) {
      throw forbidden(`project "${projectId}" is open to this conversation for reading only: writing needs every member of the conversation to be an editor of the project.`);
    }
  }

  /** The projects a session's tools may see: those every member may see. */
  async visibleToSession(sessionId: string): Promise<VisibleProjects> {
    const all = await this.sessions.listMembers(sessionId);
    const members = all.filter((m) => !this.isAdmin(m.user_id));
    if (all.length === 0) return new Map();
    if (members.length === 0) return 'all';
    const each = await Promise.all(members.map((m) => this.members.listProjectsOf(m.user_id)));
    let shared = new Map(each[0]!.map((m) => [m.project_id, m.role]));
    for (const list of each.slice(1)) {
      const roles = new Map(list.map((m) => [m.project_id, m.role]));
      shared = new Map([...shared].filter(([id]) => roles.has(id)).map(([id, role]) => [id, weakestRole([role, roles.get(id)])!]));
    }
    return shared;
  }

  // --- reports ------------------------------------------------------------------------------

  /** Claims a report path for the session before it is written; an error result for the model when another session owns it. */
  async claimReport(sessionId: string, projectId: string, path: string, options: { takeOver?: boolean } = {}): Promise<void> {
    if (!(await this.reports.claim(projectId, path, sessionId, options))) {
      throw conflict(`reports/${path} in project ${projectId} belongs to another conversation; write under another name.`, { field: 'path' });
    }
  }

  /** Of a project's report paths, those the user may read: reports of sessions they are a member of, and reports no session owns. */
  async readableReports(user: ProjectUser, projectId: string, paths: readonly string[]): Promise<Set<string>> {
    if (user.admin) return new Set(paths);
    const owners = await this.reports.owners(projectId);
    const sessionIds = [...new Set(paths.map((p) => owners.get(p)).filter((s) => s !== undefined))];
    const memberOf = new Set<string>();
    await Promise.all(
      sessionIds.map(async (id) => {
        if (await this.sessions.getMember(id, user.id)) memberOf.add(id);
      }),
    );
    return new Set(paths.filter((p) => !owners.has(p) || memberOf.has(owners.get(p)!)));
  }

  /** Whether the user may read one report (a viewer of the project is checked by the caller). */
  async canReadReport(user: ProjectUser, projectId: string, path: string): Promise<boolean> {
    if (user.admin) return true;
    const owner = await this.reports.owner(projectId, path);
    return !owner || (await this.sessions.getMember(owner.session_id, user.id)) !== undefined;
  }

  // --- webhooks -----------------------------------------------------------------------------

  /**
   * A hook's project belongs to the hook's owner and members: each gets the
   * role they have in the hook (the owner: owner), never lowering a role they
   * already have. Hooks are configured by administrators, so this is their grant.
   */
  async grantHook(projectId: string, hookId: string, people: readonly { user_id: string; name?: string; role: Role }[]): Promise<void> {
    const now = new Date().toISOString();
    await Promise.all(
      people.map(async (p) => {
        const current = await this.members.getMember(projectId, p.user_id);
        if (roleAtLeast(current?.role, p.role)) return;
        await this.members.putMember({
          v: 1,
          project_id: projectId,
          user_id: p.user_id,
          ...(p.name ? { name: p.name } : {}),
          role: p.role,
          added_at: current?.added_at ?? now,
          added_by: `hook:${hookId}`,
        });
      }),
    );
  }
}
