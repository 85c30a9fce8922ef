import * as z from 'zod';

/** One file of a memory store's index: its path inside the store and its size in bytes. */
export const memoryEntrySchema = z.object({ path: z.string(), size: z.number().int() });

/** A memory store's files (never their contents), what they use, and the store's caps. */
export const memoryListingSchema = z.object({
  /** `users/<id>` or `projects/<owner>/<repo>`. */
  store: z.string(),
  files: z.array(memoryEntrySchema),
  used_bytes: z.number().int(),
  limits: z.object({ max_file_bytes: z.number().int(), max_store_bytes: z.number().int(), max_files: z.number().int() }),
});

/** A memory file; `hash` (also the ETag) is what a writer sends back as `If-Match`. */
export const memoryFileSchema = z.object({ path: z.string(), content: z.string(), size: z.number().int(), hash: z.string() });

/** `PUT /memories/...`: the file's whole new text. */
export const memoryWriteRequestSchema = z.strictObject({ content: z.string() });

/** A memory file as written: its size and new hash. */
export const memoryWrittenSchema = z.object({ path: z.string(), size: z.number().int(), hash: z.string() });
