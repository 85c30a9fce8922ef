import { Hono, type Context, type Env as HonoEnv } from 'hono';
import type { RouterRoute } from 'hono/types';
import { baseRoutePath } from 'hono/route';

/** Marks a stand-in route of a lazy group, so the OpenAPI document can load and list the group's own routes. */
const LAZY_GROUP = Symbol.for('zero.lazy-routes');

interface LazyGroup {
  /** Where the group answers, relative to where it is mounted (Hono patterns: `/evals/*`, `/sessions/:id/fork`). */
  paths: readonly string[];
  /** The group's app, imported and built once, with its first request. */
  load: () => Promise<Hono<any>>;
}

// The caller's context while its request runs through a lazy group's app: that app reads the
// variables the outer middleware set (the verified user) and hands back what it sets.
const outerContexts = new WeakMap<Request, Context>();

/**
 * A route group whose module is imported with its first request, so a cold start does not load it:
 *
 *     api.route('/', lazyRoutes(['/evals/*'], () => import('./routes/evals').then((m) => m.evalRoutes(deps))));
 *
 * `paths` must cover every route of the group (`lazyRouteTable` refuses a route they miss, and the
 * OpenAPI test builds the table). A request under `paths` runs through the group's app with the
 * caller's context (its variables, e.g. `c.get('user')`, both ways); an error the group throws goes to
 * the enclosing app's `onError`, and a path the group does not serve goes on to the next route (the
 * enclosing app's `notFound` in the end). Routes that run before the group's (middleware of the
 * enclosing app) still run first. A failed import is not cached: the next request tries again.
 */
export function lazyRoutes<E extends HonoEnv>(paths: readonly string[], load: () => Promise<Hono<any>>): Hono<E> {
  const group: LazyGroup = { paths, load: once(load) };
  // One forwarding app per place the group is mounted at (a base pattern such as `/api/v2`), made once.
  const forwarders = new Map<string, () => Promise<Hono<any>>>();
  const forwarderAt = (base: string) => {
    let forwarder = forwarders.get(base);
    if (!forwarder) forwarders.set(base, (forwarder = once(async () => forwardingApp(base, await group.load()))));
    return forwarder();
  };
  const forward = Object.assign(
    async (c: Context, next: () => Promise<void>) => {
      const app = await forwarderAt(baseRoutePath(c));
      outerContexts.set(c.req.raw, c);
      const response = await app.fetch(c.req.raw, c.env);
      if (response.headers.has(MISSED)) return next();
      return response;
    },
    { [LAZY_GROUP]: group },
  );
  const stub = new Hono<E>();
  for (const path of paths) stub.all(path, forward);
  return stub;
}

/** The group's routes under `base`, run with the outer context's variables; its errors and misses left to the caller. */
function forwardingApp(base: string, routes: Hono<any>): Hono<any> {
  const app = new Hono<any>();
  app.use('*', async (inner, next) => {
    const outer = outerContexts.get(inner.req.raw);
    for (const [name, value] of Object.entries(outer?.var ?? {})) inner.set(name as never, value as never);
    try {
      await next();
    } finally {
      for (const [name, value] of Object.entries(inner.var)) outer?.set(name as never, value as never);
    }
  });
  app.route(base, routes);
  app.onError((error) => {
    throw error;
  });
  app.notFound(() => new Response(null, { status: 404, headers: { [MISSED]: '1' } }));
  return app;
}

// The group's app answers a path it does not serve with this header, never seen by a client.
const MISSED = 'x-zero-lazy-route-missed';

/**
 * The routes of `app` with every lazy group loaded and its routes in place of its stand-ins, each
 * under the base it is mounted at: what the OpenAPI document reads. Throws naming a group's route
 * that the group's `paths` do not cover (it could never be reached).
 */
export async function lazyRouteTable(app: Hono<any>): Promise<RouterRoute[]> {
  const table: RouterRoute[] = [];
  const expanded = new Set<string>();
  const groups = new Map<LazyGroup, number>();
  for (const route of app.routes) {
    const group = (route.handler as { [LAZY_GROUP]?: LazyGroup })[LAZY_GROUP];
    if (!group) {
      table.push(route);
      continue;
    }
    const id = groups.get(group) ?? groups.set(group, groups.size).size - 1;
    if (expanded.has(`${id} ${route.basePath}`)) continue;
    expanded.add(`${id} ${route.basePath}`);
    const routes = await group.load();
    await refuseUncovered(group.paths, routes);
    table.push(...new Hono().route(route.basePath, routes).routes);
  }
  return table;
}

/** Throws naming the first route of `routes` that no pattern of `paths` matches. */
async function refuseUncovered(paths: readonly string[], routes: Hono<any>) {
  const probe = new Hono();
  for (const path of paths) probe.all(path, (c) => c.body(null, 204));
  for (const route of routes.routes) {
    const sample = route.path.replace(/:\w+(\{[^}]*\})?/g, 'x').replace(/\*/g, 'x');
    if ((await probe.request(sample, { method: route.method === 'ALL' ? 'GET' : route.method })).status !== 204) {
      throw new Error(`the lazy route group answering ${paths.join(', ')} has a route outside them: ${route.method} ${route.path}`);
    }
  }
}

/** `load`, called at most once at a time and its result kept; a rejection is not kept, so a later call tries again. */
function once<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () => {
    if (loading) return loading;
    const attempt = load();
    attempt.catch(() => {
      if (loading === attempt) loading = undefined;
    });
    return (loading = attempt);
  };
}
