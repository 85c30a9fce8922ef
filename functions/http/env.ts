import type { AuthUser, Runtime } from '@zero/core';

/** Hono's typing for Zero's routes: the verified caller is `c.get('user')`. */
export type Env = { Variables: { user: AuthUser } };
export type AppDeps = Runtime;
