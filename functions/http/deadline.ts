import type { Context } from 'hono';
import type { Env } from './env';

/**
 * When this invocation must be done: Lambda's remaining time under
 * `streamHandle` (its context is `c.env.context`); none on Node, where the
 * runtime's own budget (`ZERO_RUN_BUDGET_MS`) applies. Every route that
 * starts a run passes it on, so a run near the limit hands over to the queue
 * instead of being killed.
 */
export function deadlineOf(c: Context<Env>): number | undefined {
  const context = (c.env as { context?: { getRemainingTimeInMillis?: () => number } } | undefined)?.context;
  const remaining = context?.getRemainingTimeInMillis?.();
  return typeof remaining === 'number' ? Date.now() + remaining : undefined;
}
