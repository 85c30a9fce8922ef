import * as z from 'zod';
import { authorSchema } from './fields';

/** `POST /sessions/:id/rewind`: the history record (a history entry's `seq`) the written area goes back to. */
export const rewindFilesRequestSchema = z.strictObject({
  at_event: z.coerce
    .number()
    .int()
    .nonnegative()
    .describe("A history record's `seq`: each file the session wrote after it goes back to its content right after that record (0: before the first)"),
});

/** One file a rewind changed: written back with its content at the point (`restored`), or removed because it did not exist then (`deleted`). */
export const rewoundFileSchema = z.object({
  path: z.string(),
  project_id: z.string().optional(),
  action: z.enum(['restored', 'deleted']),
  /** Set for `restored`: the size of the content written back. */
  bytes: z.number().int().nonnegative().optional(),
});
export type RewoundFile = z.infer<typeof rewoundFileSchema>;

/** A file written after the point that a rewind left as it is, and why (its content at the point is not in the log, e.g. a PDF `render_report` made). */
export const skippedFileSchema = z.object({ path: z.string(), project_id: z.string().optional(), reason: z.string() });

/** What a rewind did: the answer of `POST /sessions/:id/rewind` and the `files_rewound` event every follower of the session receives. */
export const filesRewoundSchema = z.object({
  at_event: z.number().int().nonnegative(),
  files: z.array(rewoundFileSchema),
  skipped: z.array(skippedFileSchema),
  by: authorSchema,
  at: z.string(),
});
export type FilesRewound = z.infer<typeof filesRewoundSchema>;
