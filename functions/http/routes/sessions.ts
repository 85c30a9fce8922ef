import { Hono } from 'hono';
import * as z from 'zod';
import {
  ZeroError,
  invalidField,
  openSession,
  parseEventId,
  requireAccess,
  resumeIfStalled,
  requireAgent,
  projectIdSchema,
  roleSchema,
  stopRun,
  strategySchema,
  userIdSchema,
  voiceModeSchema,
  watchSession,
} from '@zero/core';
import type { AppDeps, Env } from '../env';
import { streamEvents } from '../sse';
import { jsonBody, query } from '../validate';


const createSchema = z.strictObject({
  title: z.string().trim().min(1).max(200).optional(),
  agent_id: z.string().min(1).max(64).optional(),
  project_id: projectIdSchema.optional(),
  voice_mode: voiceModeSchema.optional(),
  strategy: strategySchema.optional(),
});
const patchSchema = z.strictObject({
  title: z.string().trim().min(1).max(200).optional(),
  agent_id: z.string().min(1).max(64).optional(),
  voice_mode: voiceModeSchema.optional(),
  strategy: strategySchema.optional(),
});
const switchSchema = z.strictObject({ agent_id: z.string().min(1).max(64) });
const memberSchema = z.strictObject({ role: roleSchema, name: z.string().trim().min(1).max(200).optional() });
const listSchema = z.object({ limit: z.coerce.number().int().min(1).max(100).default(20), cursor: z.string().max(2000).optional() });
const eventsQuerySchema = z.object({ after: z.string().max(40).optional(), access_token: z.string().optional() });

export interface SessionRouteOptions {
  /** Lifetime of one events stream before it ends with a hint to reconnect. */
  eventsMaxDurationMs?: number;
  heartbeatMs?: number;
}

/** Sessions, their members, cancel and the live events stream. */
export function sessionRoutes(deps: AppDeps, options: SessionRouteOptions = {}) {
  const app = new Hono<Env>();

  app.post('/sessions', async (c) => {
    const body = await jsonBody(c, createSchema);
    const session = await openSession(deps, c.get('user'), { ...body, title: body.title ?? 'New session' });
    return c.json({ session }, 201);
  });

  app.get('/sessions', async (c) => {
    const { limit, cursor } = query(c, listSchema);
    return c.json(await deps.sessions.listSessionsFor(c.get('user').id, limit, cursor));
  });

  app.get('/sessions/:id', async (c) => {
    const id = c.req.param('id');
    const { session, member } = await requireAccess(deps.sessions, id, c.get('user'), 'viewer');
    // Read before the history: following the events from here misses nothing the history lacks.
    const lastEventSeq = await deps.sessions.lastEventSeq(id);
    const [history, members, lease, waiting, artifacts] = await Promise.all([
      deps.sessions.readLog(id),
      deps.sessions.listMembers(id),
      deps.leases.inspect(id),
      deps.sessions.peekInbox(id, 100),
      deps.sessions.listArtifacts(id),
    ]);
    await resumeIfStalled(deps, id, { history, waiting });
    return c.json({
      session,
      role: member.role,
      members,
      active_run_id: lease?.active ? (lease.run_id ?? null) : null,
      last_event_id: String(lastEventSeq),
      queued: waiting.map((m) => ({ message_id: m.message_id, run_id: m.run_id, author: m.author, text: m.text, at: m.at })),
      history: history.filter((r) => r.kind !== 'void'),
      artifacts,
    });
  });

  app.patch('/sessions/:id', async (c) => {
    const id = c.req.param('id');
    const body = await jsonBody(c, patchSchema);
    await requireAccess(deps.sessions, id, c.get('user'), body.strategy ? 'owner' : 'editor');
    if (body.agent_id) await requireAgent(deps.catalog, body.agent_id);
    await deps.sessions.updateSession(id, { ...body, updated_at: new Date().toISOString() });
    return c.json({ session: await deps.sessions.requireSession(id) });
  });

  // Switches the session's active agent. The history is kept and the new agent sees it; the next
  // run's stream starts with an `agent_switch` from the agent that answered last.
  app.post('/sessions/:id/agent', async (c) => {
    const id = c.req.param('id');
    const body = await jsonBody(c, switchSchema);
    const { session } = await requireAccess(deps.sessions, id, c.get('user'), 'editor');
    const agent = await requireAgent(deps.catalog, body.agent_id);
    await deps.sessions.updateSession(id, { agent_id: agent.id, updated_at: new Date().toISOString() });
    return c.json({ session: await deps.sessions.requireSession(id), from: session.agent_id, to: agent.id });
  });

  app.delete('/sessions/:id', async (c) => {
    const id = c.req.param('id');
    await requireAccess(deps.sessions, id, c.get('user'), 'owner');
    const lease = await deps.leases.inspect(id);
    if (lease?.active && lease.run_id) await stopRun(deps, id, lease.run_id, 'cancelled');
    await deps.sessions.deleteSession(id);
    return c.body(null, 204);
  });

  app.get('/sessions/:id/members', async (c) => {
    const id = c.req.param('id');
    await requireAccess(deps.sessions, id, c.get('user'), 'viewer');
    return c.json({ members: await deps.sessions.listMembers(id) });
  });

  app.put('/sessions/:id/members/:user_id', async (c) => {
    const id = c.req.param('id');
    const userId = userIdSchema.safeParse(c.req.param('user_id'));
    if (!userId.success) throw invalidField('user_id', userId.error.issues[0]?.message ?? 'invalid');
    const body = await jsonBody(c, memberSchema);
    const { session } = await requireAccess(deps.sessions, id, c.get('user'), 'owner');
    const existing = await deps.sessions.getMember(id, userId.data);
    if (existing) {
      if (existing.role !== body.role) await deps.sessions.changeMember(id, userId.data, body.role);
    } else {
      await deps.sessions.putMember(session, { user_id: userId.data, name: body.name, role: body.role, added_at: new Date().toISOString() });
    }
    return c.json({ member: await deps.sessions.getMember(id, userId.data) }, existing ? 200 : 201);
  });

  app.delete('/sessions/:id/members/:user_id', async (c) => {
    const id = c.req.param('id');
    const userId = c.req.param('user_id');
    const me = c.get('user');
    // Anyone may leave; only owners remove others.
    await requireAccess(deps.sessions, id, me, userId === me.id ? 'viewer' : 'owner');
    await deps.sessions.changeMember(id, userId, undefined);
    return c.body(null, 204);
  });

  app.post('/sessions/:id/cancel', async (c) => {
    const id = c.req.param('id');
    await requireAccess(deps.sessions, id, c.get('user'), 'editor');
    const lease = await deps.leases.inspect(id);
    if (!lease?.active || !lease.run_id) return c.json({ cancelled: false, reason: 'no run is active' }, 409);
    const cancelled = await stopRun(deps, id, lease.run_id, 'cancelled');
    return c.json({ cancelled, run_id: lease.run_id }, cancelled ? 202 : 409);
  });

  app.get('/sessions/:id/events', async (c) => {
    const id = c.req.param('id');
    const user = c.get('user');
    await requireAccess(deps.sessions, id, user, 'viewer');
    const { after } = query(c, eventsQuerySchema);
    const cursor = c.req.header('last-event-id') ?? after;
    const position = parseEventId(cursor);
    if (cursor && !position) throw new ZeroError('invalid_request', 'the cursor must be an event id such as "12.3"', { field: 'after' });
    await resumeIfStalled(deps, id);
    const maxDurationMs = options.eventsMaxDurationMs ?? 10 * 60_000;
    // Each open stream holds a place until it ends (or, if its process dies, until it would have ended).
    const release = await deps.streams.acquire(user.id, maxDurationMs + 60_000);
    if (!release) {
      const limit = deps.streams.perUser;
      throw new ZeroError(
        'too_many_requests',
        `you already have ${limit} live-view streams open, the most one user may (ZERO_MAX_STREAMS_PER_USER=${limit}); close one and retry`,
        { limit },
      );
    }
    return streamEvents(
      c,
      (signal) => {
        signal.addEventListener('abort', () => void release(), { once: true });
        return watchSession(deps, id, { after: position, signal });
      },
      { maxDurationMs, heartbeatMs: options.heartbeatMs },
    );
  });

  return app;
}
