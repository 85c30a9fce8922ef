import type { AuthUser } from '@zero/runtime/auth/authenticator';
import type { Runtime } from '../create-runtime';

/**
 * Hono's typing for Zero's routes: the verified caller is `c.get('user')`, and
 * `c.get('credential')` names the credential it came with (rate limits count per credential);
 * a route that starts a run names its session and run (`sessionId`, `runId`) for the request's log line;
 * when the invocation must end (Lambda), `c.get('deadline')`.
 */
export type Env = { Variables: { user: AuthUser; deadline: number | undefined; credential: string; sessionId?: string; runId?: string } };
export type AppDeps = Runtime;
