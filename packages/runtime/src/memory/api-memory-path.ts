import * as z from 'zod';

/** Control characters (C0, C1), format characters (Cf) and line and paragraph separators: never in a name or path. */
export const FORBIDDEN_CHARACTERS = /[\p{Cc}\p{Cf}\u2028\u2029]/u;

/** A memory's path as the Managed Agents API gives it: `/a/b.md`, 1–20 segments, no "." or "..", NFC, at most 1,024 bytes. */
export const apiMemoryPath = z
  .string()
  .refine((p) => p.startsWith('/'), 'must start with "/"')
  .refine((p) => Buffer.byteLength(p) <= 1024, 'must be at most 1,024 bytes')
  .refine((p) => !FORBIDDEN_CHARACTERS.test(p), 'must not contain control or format characters')
  .refine((p) => p === p.normalize('NFC'), 'must be in Unicode Normalization Form C')
  .refine((p) => {
    const segments = p.slice(1).split('/');
    return segments.length >= 1 && segments.length <= 20 && segments.every((s) => s !== '' && s !== '.' && s !== '..');
  }, 'must have 1 to 20 segments, none empty, "." or ".."');

/** The most a memory's content holds through the API (bytes of UTF-8). */
export const MAX_API_MEMORY_BYTES = 102_400;
