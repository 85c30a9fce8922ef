import * as z from 'zod';
import { userIdSchema } from './fields';

const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a UTC day, YYYY-MM-DD').refine((s) => !Number.isNaN(Date.parse(`${s}T00:00:00Z`)), 'is not a day');

/** The query of `GET /api/v2/usage`: UTC days from `from` to `to` (inclusive; a week to today by default), grouped. */
export const usageQuerySchema = z.strictObject({
  from: day.optional(),
  to: day.optional(),
  group_by: z.enum(['user', 'agent', 'session', 'day']).default('day'),
  /** Only this user's runs (a user who is not an administrator may name only themself; they see only their own anyway). */
  user_id: userIdSchema.optional(),
});
export type UsageQuery = z.infer<typeof usageQuerySchema>;

/** What runs used: tokens by kind, cost, runs finished, and tool calls by tool. */
export const usageTotalsSchema = z.object({
  runs: z.number().int(),
  cost_usd: z.number(),
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  cache_read_input_tokens: z.number().int(),
  cache_creation_input_tokens: z.number().int(),
  tool_calls: z.record(z.string(), z.number().int()),
});
export type UsageTotals = z.infer<typeof usageTotalsSchema>;

export const usageResponseSchema = z.object({
  from: z.string(),
  to: z.string(),
  group_by: z.enum(['user', 'agent', 'session', 'day']),
  /** Whose runs: a user id, or `null` for everyone's (administrators). */
  user_id: z.string().nullable(),
  /** One entry per user, agent, session or day, by cost, most first (days: in order). */
  groups: z.array(usageTotalsSchema.extend({ key: z.string() })),
  total: usageTotalsSchema,
});
export type UsageResponse = z.infer<typeof usageResponseSchema>;
