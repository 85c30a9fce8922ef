import * as z from 'zod';
import { keys } from '../keys';
import { storedItem } from '../stored-item';
import { roleSchema } from './fields';

/** `PROJECT#<id>` / `MEMBER#<user>`. */
export const projectMemberKey = (projectId: string, userId: string) => ({ pk: keys.project(projectId), sk: keys.member(userId) });
export const projectMemberPrefix = keys.memberPrefix;

/** The membership's place in `gsi1`: a user's projects, by id. */
export const projectMemberIndex = (member: { user_id: string; project_id: string }) => ({ gsi1pk: keys.userProjects(member.user_id), gsi1sk: member.project_id });

/** One member of a project and their role. */
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

/** Versions: 1 (every item so far). */
export const projectMemberItem = storedItem<ProjectMember>('project member', { 1: projectMemberSchema });
