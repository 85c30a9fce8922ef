import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { ZeroError } from '../errors';
import { keys } from './keys';
import { roleSchema, type Role } from '../wire';
import { isConditionFailure } from './session-store';

/** `PROJECT#<id>` / `META`: who claimed the project first. Written once (conditionally), so of two first uploads exactly one wins. */
export const projectClaimSchema = z.object({
  v: z.literal(1),
  project_id: z.string(),
  created_by: z.string(),
  created_at: z.string(),
});
export type ProjectClaim = z.infer<typeof projectClaimSchema>;

/** `PROJECT#<id>` / `MEMBER#<user>`: one member of a project and their role. */
export const projectMemberSchema = z.object({
  v: z.literal(1),
  project_id: z.string(),
  user_id: z.string(),
  name: z.string().optional(),
  role: roleSchema,
  added_at: z.string(),
  /** Who added them: a user id, or `hook:<id>` for a webhook's owner and members. */
  added_by: z.string().optional(),
});
export type ProjectMember = z.infer<typeof projectMemberSchema>;

// The schemas are not strict: the key attributes (pk, sk, gsi1pk, gsi1sk) are dropped when an item is decoded.
const decode = <S extends z.ZodType>(schema: S, item: Record<string, unknown>): z.output<S> => schema.parse(item);

/**
 * Project membership in DynamoDB, one item per member beside the project's
 * claim item, and each member also indexed by user (`gsi1`) so a user's
 * projects are listed without a scan. Single-item conditional writes only.
 */
export class ProjectMemberStore {
  constructor(
    readonly db: DynamoDBDocumentClient,
    readonly table: string,
  ) {}

  async getClaim(projectId: string): Promise<ProjectClaim | undefined> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.table, Key: { pk: keys.project(projectId), sk: keys.meta } }));
    return Item ? decode(projectClaimSchema, Item) : undefined;
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
    const { Item } = await this.db.send(new GetCommand({ TableName: this.table, Key: { pk: keys.project(projectId), sk: keys.member(userId) } }));
    return Item ? decode(projectMemberSchema, Item) : undefined;
  }

  async listMembers(projectId: string): Promise<ProjectMember[]> {
    const out: ProjectMember[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.db.send(
        new QueryCommand({
          TableName: this.table,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :m)',
          ExpressionAttributeValues: { ':pk': keys.project(projectId), ':m': 'MEMBER#' },
          ExclusiveStartKey: start,
        }),
      );
      for (const item of page.Items ?? []) out.push(decode(projectMemberSchema, item));
      start = page.LastEvaluatedKey;
    } while (start);
    return out;
  }

  /** The projects a user is a member of, by project id (`gsi1`, never a scan). */
  async listProjectsOf(userId: string): Promise<ProjectMember[]> {
    const out: ProjectMember[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.db.send(
        new QueryCommand({
          TableName: this.table,
          IndexName: 'gsi1',
          KeyConditionExpression: 'gsi1pk = :u',
          ExpressionAttributeValues: { ':u': keys.userProjects(userId) },
          ExclusiveStartKey: start,
        }),
      );
      for (const item of page.Items ?? []) {
        const parsed = projectMemberSchema.safeParse(item);
        if (parsed.success) out.push(parsed.data);
      }
      start = page.LastEvaluatedKey;
    } while (start);
    return out;
  }

  /**
   * Adds a member or replaces their item. The project counts as claimed from
   * then on (by whoever added the first member), so it can no longer be taken
   * by a first upload.
   */
  async putMember(member: ProjectMember): Promise<void> {
    await this.putClaim(member.project_id, member.added_by ?? member.user_id, member.added_at);
    await this.db.send(
      new PutCommand({
        TableName: this.table,
        Item: {
          pk: keys.project(member.project_id),
          sk: keys.member(member.user_id),
          ...member,
          gsi1pk: keys.userProjects(member.user_id),
          gsi1sk: member.project_id,
        },
      }),
    );
  }

  /**
   * Changes a member's role or removes them (`undefined`), refusing to leave
   * the project without an owner; written conditionally on the role read, so
   * two owners demoting each other at once cannot both succeed.
   */
  async changeMember(projectId: string, userId: string, role: Role | undefined): Promise<void> {
    const members = await this.listMembers(projectId);
    const current = members.find((m) => m.user_id === userId);
    if (!current) throw new ZeroError('not_found', `user "${userId}" is not a member of project "${projectId}"`, 404, { field: 'user_id' });
    const lastOwner = () => new ZeroError('conflict', 'the last owner of a project cannot leave or be demoted; make someone else an owner first', 409);
    if (current.role === 'owner' && role !== 'owner' && members.filter((m) => m.role === 'owner').length <= 1) throw lastOwner();
    const key = { pk: keys.project(projectId), sk: keys.member(userId) };
    const condition = { ConditionExpression: '#r = :r', ExpressionAttributeNames: { '#r': 'role' } };
    try {
      if (role === undefined) {
        await this.db.send(new DeleteCommand({ TableName: this.table, Key: key, ...condition, ExpressionAttributeValues: { ':r': current.role } }));
      } else {
        await this.db.send(
          new UpdateCommand({ TableName: this.table, Key: key, UpdateExpression: 'SET #r = :new', ...condition, ExpressionAttributeValues: { ':r': current.role, ':new': role } }),
        );
      }
    } catch (error) {
      if (isConditionFailure(error)) throw new ZeroError('conflict', 'the membership changed meanwhile; try again', 409);
      throw error;
    }
    if (current.role === 'owner' && role !== 'owner' && !(await this.listMembers(projectId)).some((m) => m.role === 'owner')) {
      // A concurrent change left no owner: restore this one.
      await this.putMember(current);
      throw lastOwner();
    }
  }

  /** Writes the claim item unless one exists; true when this call wrote it. */
  private async putClaim(projectId: string, by: string, at: string): Promise<boolean> {
    const item: ProjectClaim = { v: 1, project_id: projectId, created_by: by, created_at: at };
    try {
      await this.db.send(
        new PutCommand({ TableName: this.table, Item: { pk: keys.project(projectId), sk: keys.meta, ...item }, ConditionExpression: 'attribute_not_exists(pk)' }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }
}
