import * as z from 'zod';
import { keys } from '../keys';
import { storedItem } from '../stored-item';

/** `PROJECT#<id>` / `META`. */
export const projectClaimKey = (projectId: string) => ({ pk: keys.project(projectId), sk: keys.meta });

/** Who claimed the project first. Written once (conditionally), so of two first uploads exactly one wins. */
export const projectClaimSchema = z.object({
  v: z.literal(1),
  project_id: z.string(),
  created_by: z.string(),
  created_at: z.string(),
});
export type ProjectClaim = z.infer<typeof projectClaimSchema>;

/** Versions: 1 (every item so far). */
export const projectClaimItem = storedItem<ProjectClaim>('project claim', { 1: projectClaimSchema });
