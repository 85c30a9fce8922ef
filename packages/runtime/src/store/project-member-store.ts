import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ZeroError } from '@zero/agent/errors';
import type { Role } from './items/fields';
import { projectClaimItem, projectClaimKey, type ProjectClaim } from './items/project-claim';
import { projectMemberIndex, projectMemberItem, projectMemberKey, projectMemberPrefix, type ProjectMember } from './items/project-member';
import { keys } from './keys';
import { changeRoleKeepingAnOwner } from './membership';
import { Table } from './table';

/**
 * Project membership in DynamoDB, one item per member beside the project's
 * claim item, and each member also indexed by user (`gsi1`) so a user's
 * projects are listed without a scan. Single-item conditional writes only.
 */
export class ProjectMemberStore {
  private readonly items: Table;

  constructor(
    readonly db: DynamoDBDocumentClient,
    readonly table: string,
  ) {
    this.items = new Table(db, table);
  }

  async getClaim(projectId: string): Promise<ProjectClaim | undefined> {
    const item = await this.items.get(projectClaimKey(projectId));
    return item && projectClaimItem.decode(item);
  }

  /**
   * Makes `user` the project's first owner if nobody has claimed it yet.
   * True when the claim is theirs (also when a crash had left their claim
   * without its owner item: that item is written again).
   */
  async claim(projectId: string, user: { id: string; name?: string }): Promise<boolean> {
    const now = new Date().toISOString();
    const won = await this.putClaim(projectId, user.id, now);
    if (!won && (await this.getClaim(projectId))?.created_by !== user.id) return false;
    if (!won && (await this.getMember(projectId, user.id))) return true;
    await this.putMember({ v: 1, project_id: projectId, user_id: user.id, ...(user.name ? { name: user.name } : {}), role: 'owner', added_at: now, added_by: user.id });
    return true;
  }

  async getMember(projectId: string, userId: string): Promise<ProjectMember | undefined> {
    const item = await this.items.get(projectMemberKey(projectId, userId));
    return item && projectMemberItem.decode(item);
  }

  async listMembers(projectId: string): Promise<ProjectMember[]> {
    const items = await this.items.query({ pk: keys.project(projectId), prefix: projectMemberPrefix });
    return items.map((item) => projectMemberItem.decode(item));
  }

  /** The projects a user is a member of, by project id (`gsi1`, never a scan). */
  async listProjectsOf(userId: string): Promise<ProjectMember[]> {
    const items = await this.items.query({ pk: keys.userProjects(userId), index: 'gsi1' });
    return items.map((item) => projectMemberItem.decode(item));
  }

  /**
   * Adds a member or replaces their item. The project counts as claimed from
   * then on (by whoever added the first member), so it can no longer be taken
   * by a first upload.
   */
  async putMember(member: ProjectMember): Promise<void> {
    await this.putClaim(member.project_id, member.added_by ?? member.user_id, member.added_at);
    await this.items.put({ ...projectMemberKey(member.project_id, member.user_id), ...member, v: projectMemberItem.version, ...projectMemberIndex(member) });
  }

  /** Changes a member's role or removes them (`undefined`), refusing to leave the project without an owner. */
  async changeMember(projectId: string, userId: string, role: Role | undefined): Promise<void> {
    await changeRoleKeepingAnOwner(
      {
        table: this.items,
        members: () => this.listMembers(projectId),
        key: (user) => projectMemberKey(projectId, user),
        restore: (member) => this.putMember(member),
        notMember: (user) => new ZeroError('not_found', `user "${user}" is not a member of project "${projectId}"`, { field: 'user_id' }),
        lastOwner: () => new ZeroError('conflict', 'the last owner of a project cannot leave or be demoted; make someone else an owner first'),
      },
      userId,
      role,
    );
  }

  /** Writes the claim item unless one exists; true when this call wrote it. */
  private putClaim(projectId: string, by: string, at: string): Promise<boolean> {
    const claim: ProjectClaim = { v: 1, project_id: projectId, created_by: by, created_at: at };
    return this.items.putNew({ ...projectClaimKey(projectId), ...claim });
  }
}
