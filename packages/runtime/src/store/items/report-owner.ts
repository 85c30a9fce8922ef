import * as z from 'zod';
import { keys } from '../keys';
import { storedItem } from '../stored-item';

/** `PROJECT#<id>` / `REPORT#<path>`. */
export const reportOwnerKey = (projectId: string, path: string) => ({ pk: keys.project(projectId), sk: keys.report(path) });
export const reportOwnerPrefix = keys.reportPrefix;

/**
 * The session that wrote a report of the project. A report is as private as
 * its session: only that session's members read it, and only that session
 * writes it again.
 */
export const reportOwnerSchema = z.object({
  v: z.literal(1),
  project_id: z.string(),
  path: z.string(),
  session_id: z.string(),
  at: z.string(),
});
export type ReportOwner = z.infer<typeof reportOwnerSchema>;

/** Versions: 1 (every item so far). */
export const reportOwnerItem = storedItem<ReportOwner>('report owner', { 1: reportOwnerSchema });
