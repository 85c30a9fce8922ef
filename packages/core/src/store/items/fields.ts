import * as z from 'zod';

/** Field schemas that several item types share. */

export const roleSchema = z.enum(['owner', 'editor', 'viewer']);
export type Role = z.infer<typeof roleSchema>;

export const authorSchema = z.object({ id: z.string(), name: z.string().optional() });
export type Author = z.infer<typeof authorSchema>;
