import * as z from 'zod';
import { budgetScopeSchema } from './fields';

/** Dollars as a request gives them: positive, at most a million, at most micro-dollar precision kept. */
const dollars = z.number().positive().max(1_000_000);

/** The body of `PUT /api/v2/sessions/:id/budget` (owners): the session's budget, or `null` for the deployment's maximum. */
export const sessionBudgetRequestSchema = z.strictObject({ max_cost_usd: dollars.nullable() });

/** The body of `PUT /api/v2/admin/budgets/users/:id` and `/deployment` (administrators): today's limit (UTC), or `null` for the configured one. */
export const dailyBudgetRequestSchema = z.strictObject({ daily_usd: dollars.nullable() });

/** A budget as the API shows it: what is spent and the limit (`null`: none). */
export const budgetResponseSchema = z.object({
  budget: budgetScopeSchema,
  /** The UTC day of a user's or the deployment's budget. */
  day: z.string().optional(),
  spent_usd: z.number(),
  /** What model calls in flight hold on it now: each reserves its most before it starts, and lets go as its cost is counted. */
  held_usd: z.number(),
  limit_usd: z.number().nullable(),
  limit_set_by: z.string().optional(),
  limit_set_at: z.string().optional(),
});
export type BudgetResponse = z.infer<typeof budgetResponseSchema>;

/** A session's spend: its total cost and tokens over every run, and its budget. */
export const sessionSpendSchema = z.object({
  cost_usd: z.number(),
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  cache_read_input_tokens: z.number().int(),
  cache_creation_input_tokens: z.number().int(),
  max_cost_usd: z.number().nullable(),
});
export type SessionSpend = z.infer<typeof sessionSpendSchema>;
