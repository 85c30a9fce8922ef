import * as z from 'zod';

/** A project id: `owner/repo`, each part letters, digits, `.`, `_` or `-`, never a dot segment. */
export const projectIdSchema = z
  .string()
  .min(3)
  .max(200)
  .regex(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/, 'must look like "owner/repo"')
  .refine((s) => !s.split('/').some((part) => part === '.' || part === '..'), 'must not contain "." or ".." segments');
