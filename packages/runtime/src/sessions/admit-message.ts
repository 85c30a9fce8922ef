import { refuseIfSuspended } from '../auth/suspensions';
import type { SessionRunnerDeps } from './runner-deps';

/**
 * The one check every message passes before anything of it is written, whatever brought it (the
 * chat and UI routes, `/v1`'s `user.message`, MCP's `ask_<agent>`, a webhook, a schedule): its
 * user (the author, or the owner of an unattended session) is not suspended (403), their day's and
 * the deployment's budgets are not spent (402), and a message to an existing session fits that
 * session's rate limit (429, `ZERO_RATE_LIMIT_SESSION_PER_MINUTE`, counted across instances).
 */
export async function admitMessage(deps: Pick<SessionRunnerDeps, 'budgets' | 'rateLimits'>, userId: string, sessionId?: string): Promise<void> {
  await refuseIfSuspended(deps.budgets, userId);
  await (await deps.budgets?.())?.refuseIfSpent(userId);
  if (sessionId) await (await deps.rateLimits?.())?.take('session', sessionId);
}
