import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { ZeroError } from '@zero/agent/errors';
import { errorResponse } from './errors';
import { lazyRoutes, lazyRouteTable } from './lazy-routes';

type Vars = { Variables: { user: string; seen?: string } };

/** A group's app as a route module builds it: reads the caller's variables, sets one, may throw. */
function evalsGroup() {
  const group = new Hono<Vars>();
  group.get('/evals/runs/:id', (c) => {
    c.set('seen', c.req.param('id'));
    return c.json({ id: c.req.param('id'), user: c.get('user') });
  });
  group.post('/evals/runs', async (c) => c.json({ posted: await c.req.json() }, 201));
  group.get('/evals/refused', () => {
    throw new ZeroError('not_found', 'no such run');
  });
  return group;
}

/** The enclosing app: middleware that sets the user and reads what the group set, its own error and not-found answers. */
function enclosing(load: () => Promise<Hono<any>>) {
  const app = new Hono<Vars>();
  const seen: (string | undefined)[] = [];
  app.onError((error, c) => errorResponse(error, c));
  app.notFound((c) => c.json({ error: { code: 'not_found', message: 'outer' } }, 404));
  const api = new Hono<Vars>();
  api.use('*', async (c, next) => {
    c.set('user', 'ada');
    await next();
    seen.push(c.get('seen'));
  });
  api.route('/', lazyRoutes(['/evals/*'], load));
  api.get('/evals/after', (c) => c.text('the next route'));
  app.route('/api/v2', api);
  return { app, seen };
}

describe('a lazy route group', () => {
  it('is imported with its first request only, once, and answers with the caller’s context both ways', async () => {
    let loads = 0;
    const { app, seen } = enclosing(async () => (loads++, evalsGroup()));
    expect(loads).toBe(0);
    const res = await app.request('/api/v2/evals/runs/r1');
    expect(await res.json()).toEqual({ id: 'r1', user: 'ada' });
    expect(seen).toEqual(['r1']);
    const posted = await app.request('/api/v2/evals/runs', { method: 'POST', body: JSON.stringify({ a: 1 }) });
    expect(posted.status).toBe(201);
    expect(await posted.json()).toEqual({ posted: { a: 1 } });
    expect(loads).toBe(1);
  });

  it("hands the group's errors to the enclosing app's onError, and a path it does not serve to the next route, then notFound", async () => {
    const { app } = enclosing(async () => evalsGroup());
    const refused = await app.request('/api/v2/evals/refused');
    expect(refused.status).toBe(404);
    expect(await refused.json()).toEqual({ error: { code: 'not_found', message: 'no such run' } });
    const next = await app.request('/api/v2/evals/after');
    expect(await next.text()).toBe('the next route');
    const missing = await app.request('/api/v2/evals/nowhere');
    expect(missing.status).toBe(404);
    expect(missing.headers.has('x-zero-lazy-route-missed')).toBe(false);
    expect(await missing.json()).toEqual({ error: { code: 'not_found', message: 'outer' } });
  });

  it('tries the import again after it failed', async () => {
    let attempts = 0;
    const { app } = enclosing(async () => {
      if (++attempts === 1) throw new Error('chunk not loaded');
      return evalsGroup();
    });
    expect((await app.request('/api/v2/evals/runs/r1')).status).toBe(500);
    expect((await app.request('/api/v2/evals/runs/r1')).status).toBe(200);
    expect(attempts).toBe(2);
  });

  it("lists the group's own routes under its base in the route table, in its place, and refuses a route its paths miss", async () => {
    const { app } = enclosing(async () => evalsGroup());
    const table = (await lazyRouteTable(app)).filter((r) => r.method !== 'ALL').map((r) => `${r.method} ${r.path}`);
    expect(table).toEqual(['GET /api/v2/evals/runs/:id', 'POST /api/v2/evals/runs', 'GET /api/v2/evals/refused', 'GET /api/v2/evals/after']);

    const narrow = new Hono().route('/api', lazyRoutes(['/evals/runs/*'], async () => evalsGroup()));
    await expect(lazyRouteTable(narrow)).rejects.toThrow('has a route outside them: GET /evals/refused');
  });
});
