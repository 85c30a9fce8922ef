import type { MiddlewareHandler } from 'hono';
import type { Env } from './env';

/**
 * Sets `c.get('deadline')`: when this invocation must be done. Under
 * `streamHandle` that is Lambda's remaining time (its context is
 * `c.env.context`); on Node there is none, and the runtime's own budget
 * (`ZERO_RUN_BUDGET_MS`) applies. Every route that starts a run passes it
 * on, so a run near the limit hands over to the queue instead of being killed.
 */
export function deadline(): MiddlewareHandler<Env> {
  return async (c, next) => {
    const context = (c.env as { context?: { getRemainingTimeInMillis?: () => number } } | undefined)?.context;
    const remaining = context?.getRemainingTimeInMillis?.();
    c.set('deadline', typeof remaining === 'number' ? Date.now() + remaining : undefined);
    await next();
  };
}
