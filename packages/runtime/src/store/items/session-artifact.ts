import * as z from 'zod';
import { keys } from '../keys';
import { storedItem } from '../stored-item';

/** `SESSION#<id>` / `ARTIFACT#<object key>`. */
export const sessionArtifactKey = (sessionId: string, objectKey: string) => ({ pk: keys.session(sessionId), sk: keys.artifact(objectKey) });
export const sessionArtifactPrefix = keys.artifactPrefix;

/** A file a tool wrote for a session (a report or an artifact), kept beside the session's log. */
export const sessionArtifactSchema = z.object({
  v: z.literal(1),
  key: z.string(),
  /** The path as the tool was given it, e.g. "reports/summary.md". */
  path: z.string(),
  project_id: z.string().optional(),
  bytes: z.number().int().nonnegative(),
  run_id: z.string(),
  tool_call_id: z.string(),
  at: z.string(),
});
export type SessionArtifact = z.infer<typeof sessionArtifactSchema>;

/** Versions: 1 (every item so far). */
export const sessionArtifactItem = storedItem<SessionArtifact>('session artifact', { 1: sessionArtifactSchema });
