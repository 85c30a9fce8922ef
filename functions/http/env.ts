import type { AuthUser, Runtime } from '@zero/core';

/**
 * Hono's typing for Zero's routes: the verified caller is `c.get('user')`;
 * when the invocation must end (Lambda), `c.get('deadline')`.
 */
export type Env = { Variables: { user: AuthUser; deadline: number | undefined } };
export type AppDeps = Runtime;
