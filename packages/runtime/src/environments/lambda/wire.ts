import { lstat, readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { createGzip } from 'node:zlib';
import * as z from 'zod';
import { sandboxLimitsSchema } from '../sandbox';
import { onFirstUse } from '@zero/agent/on-first-use';

/** Lambda takes 6 MB of request payload: the working copy travels as at most this much base64'd tar.gz. */
export const MAX_ARCHIVE_BASE64 = 4 * 1024 * 1024;
/** Changed files sent back, base64, in all (under Lambda's 6 MB response payload). */
export const MAX_CHANGES_BASE64 = 4 * 1024 * 1024;

// Both schemas are built on first use: the API imports this file with the sandbox's client, and a cold start runs no command.
const buildEventSchema = () =>
  z.object({
    command: z.union([z.object({ argv: z.array(z.string().max(100_000)).min(1).max(10_000) }), z.object({ script: z.string().min(1).max(100_000) })]),
    /** Relative to the working copy. */
    cwd: z.string().max(1024).optional(),
    env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/), z.string().max(10_000)).optional(),
    limits: sandboxLimitsSchema,
    /** The working copy, a base64 tar.gz. */
    archive: z.string().max(MAX_ARCHIVE_BASE64),
  });
/** One command for the sandbox function. */
export const sandboxEventSchema = onFirstUse(buildEventSchema);
export type SandboxEvent = z.infer<ReturnType<typeof buildEventSchema>>;

const buildResultSchema = () => {
  const streamSchema = z.object({ text: z.string(), bytes: z.number(), truncated: z.boolean() });
  return z.object({
    outcome: z.object({
      stdout: streamSchema,
      stderr: streamSchema,
      exitCode: z.number().nullable(),
      signal: z.string().nullable(),
      durationMs: z.number(),
      timedOut: z.boolean(),
      startError: z.string().optional(),
    }),
    changes: z.array(z.object({ path: z.string(), body: z.string().optional(), deleted: z.literal(true).optional() })),
    /** Changes left out because they were over MAX_CHANGES_BASE64. */
    omitted: z.array(z.string()),
  });
};
/** What the sandbox function answers: the command's outcome and the files it changed, created or deleted. */
export const sandboxResultSchema = onFirstUse(buildResultSchema);
export type SandboxResult = z.infer<ReturnType<typeof buildResultSchema>>;

/** Regular files of a tree, relative paths with "/" (links and special files are left out). */
export async function filesOf(root: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string) => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile()) out.push(relative(root, path).split('\\').join('/'));
    }
  };
  await walk(root);
  return out.sort();
}

/** A tree's regular files as a tar.gz. */
export async function packTree(root: string): Promise<Buffer> {
  const { pack } = await import('tar-stream');
  const tar = pack();
  const gzip = createGzip();
  const chunks: Buffer[] = [];
  gzip.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<void>((resolve, reject) => {
    gzip.on('end', resolve);
    gzip.on('error', reject);
  });
  tar.pipe(gzip);
  for (const path of await filesOf(root)) {
    const info = await lstat(join(root, path));
    tar.entry({ name: path, mode: info.mode & 0o777, mtime: info.mtime }, await readFile(join(root, path)));
  }
  tar.finalize();
  await done;
  return Buffer.concat(chunks);
}
