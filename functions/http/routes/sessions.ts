import { Hono } from 'hono';
import * as z from 'zod';
import { DEFAULT_APPROVAL_TTL_MS, pendingApproval, waitingRun } from '@zero/runtime/sessions/approvals';
import { ZeroError, invalidField } from '@zero/agent/errors';
import { cancelWaitingRun } from '@zero/runtime/sessions/cancel-waiting';
import { openSession } from '@zero/runtime/sessions/open-session';
import { parseEventId } from '@zero/agent/events/ids';
import { requireAccess } from '@zero/runtime/sessions/access';
import { wakeSession } from '@zero/runtime/sessions/wake-session';
import { requireAgent } from '@zero/agent/definitions/catalog';
import { stopRun } from '@zero/runtime/sessions/stop-run';
import { deleteSession } from '@zero/runtime/sessions/delete-session';
import { watchSession } from '@zero/runtime/sessions/watch-session';
import { activeBranch, branchPoints } from '@zero/runtime/store/branches';
import { outcomeGrades } from '@zero/agent/ui/outcome-grades';
import { eventsWithoutThinking, hidesThinking, historyWithoutThinking } from '@zero/runtime/sessions/thinking-visibility';
import {
  cancelResponseSchema,
  createSessionRequestSchema,
  listSessionsQuerySchema,
  memberRequestSchema,
  sessionDetailSchema,
  sessionEventsQuerySchema,
  sessionListSchema,
  sessionMemberResponseSchema,
  sessionMembersResponseSchema,
  sessionWatchersResponseSchema,
  sessionResponseSchema,
  streamEventSchema,
  switchAgentRequestSchema,
  switchAgentResponseSchema,
  updateSessionRequestSchema,
  userIdSchema,
} from '@zero/agent/wire';
import { describe, json, param, query } from '../declare';
import type { AppDeps, Env } from '../env';
import { streamEvents } from '../sse';

/** `GET /sessions/:id?branches=all`: the history of every branch, not only the active one. */
const sessionDetailQuerySchema = z.object({ branches: z.enum(['all', 'active']).optional() });

// Session ids are checked by `requireAccess`, which names the field `session_id`.
const memberParams = z.object({ id: z.string(), user_id: userIdSchema });

export interface SessionRouteOptions {
  /** Lifetime of one events stream before it ends with a hint to reconnect. */
  eventsMaxDurationMs?: number;
  heartbeatMs?: number;
}

/** Sessions, their members, cancel and the live events stream. */
export function sessionRoutes(deps: AppDeps, options: SessionRouteOptions = {}) {
  const app = new Hono<Env>();

  app.post('/sessions', describe({ summary: 'Open a session', responses: { 201: sessionResponseSchema } }), json(createSessionRequestSchema), async (c) => {
    const { max_cost_usd: maxCost, ...body } = c.req.valid('json');
    const user = c.get('user');
    // Checked against the deployment's cap before the session exists: a refused budget opens nothing.
    const budgets = maxCost === undefined ? undefined : await deps.budgets?.();
    budgets?.checkSessionBudget(maxCost!);
    const session = await openSession(deps, user, { ...body, title: body.title ?? 'New session' });
    if (budgets) {
      await budgets.setSessionBudget(session.session_id, maxCost!, user.id);
      await deps.sessions.updateSession(session.session_id, { has_budget: true });
    }
    return c.json({ session: budgets ? { ...session, has_budget: true } : session }, 201);
  });

  app.get('/sessions', describe({ summary: "The caller's sessions, newest first, a page at a time", responses: { 200: sessionListSchema } }), query(listSessionsQuerySchema), async (c) => {
    const { limit, cursor, q } = c.req.valid('query');
    return c.json(await deps.sessions.listSessionsFor(c.get('user').id, limit, cursor, { search: q || undefined, unread: true }));
  });

  app.get('/sessions/:id', describe({ summary: 'A session: settings, members, history, queued messages, artifacts', responses: { 200: sessionDetailSchema } }), query(sessionDetailQuerySchema), async (c) => {
    const id = c.req.param('id');
    const allBranches = c.req.valid('query').branches === 'all';
    const { session, member } = await requireAccess(deps.sessions, id, c.get('user'), 'viewer');
    // Read before the history: following the events from here misses nothing the history lacks.
    const lastEventSeq = await deps.sessions.lastEventSeq(id);
    const [log, members, lease, waiting, artifacts, spend] = await Promise.all([
      deps.sessions.readAllBranches(id),
      deps.sessions.listMembers(id),
      deps.leases.inspect(id),
      deps.sessions.peekInbox(id, 100),
      deps.sessions.listArtifacts(id),
      deps.budgets?.().then((budgets) => budgets.sessionSpend(id)),
      // Opening the session is seeing it: the sessions list stops marking it unread.
      lastEventSeq > 0 ? deps.sessions.markSeen(id, member.user_id, lastEventSeq) : undefined,
    ]);
    // Calls that waited past the approval time are denied now, and a run its dead holder left goes on.
    const active = activeBranch(log);
    const history = await wakeSession(deps, id, { history: active, waiting });
    const branches = branchPoints(log);
    // `?branches=all`: every branch's records, in log order (what the waking wrote is in `history` then too).
    const shown = allBranches ? [...log, ...history.filter((r) => r.seq > (log.at(-1)?.seq ?? 0))] : history;
    const awaiting = waitingRun(history);
    return c.json({
      session,
      role: member.role,
      members,
      active_run_id: lease?.active ? (lease.run_id ?? null) : null,
      last_event_id: String(lastEventSeq),
      queued: waiting.map((m) => ({ message_id: m.message_id, run_id: m.run_id, author: m.author, text: m.text, at: m.at })),
      awaiting_approval: awaiting ? { run_id: awaiting.runId, pending: awaiting.pending.map((p) => pendingApproval(p, deps.approvalTtlMs ?? DEFAULT_APPROVAL_TTL_MS)) } : null,
      history: hidesThinking(deps, member.role) ? historyWithoutThinking(shown.filter((r) => r.kind !== 'void')) : shown.filter((r) => r.kind !== 'void'),
      ...(branches.length ? { branches } : {}),
      artifacts,
      ...(spend ? { spend } : {}),
      // Grades live in the event log: read only for a session with an outcome message.
      ...(shown.some((r) => r.kind === 'user_message' && r.outcome) ? { outcome_grades: outcomeGrades((await deps.sessions.readEvents(id, 0)).flatMap((b) => b.events)) } : {}),
    });
  });

  app.patch('/sessions/:id', describe({ summary: "Change a session's settings", responses: { 200: sessionResponseSchema } }), json(updateSessionRequestSchema), async (c) => {
    const id = c.req.param('id');
    const body = c.req.valid('json');
    await requireAccess(deps.sessions, id, c.get('user'), body.strategy ? 'owner' : 'editor');
    if (body.agent_id) await requireAgent(deps.catalog, body.agent_id);
    await deps.sessions.updateSession(id, { ...body, updated_at: new Date().toISOString() });
    return c.json({ session: await deps.sessions.requireSession(id) });
  });

  // Switches the session's active agent. The history is kept and the new agent sees it; the next
  // run's stream starts with an `agent_switch` from the agent that answered last.
  app.post('/sessions/:id/agent', describe({ summary: "Switch the session's agent", responses: { 200: switchAgentResponseSchema } }), json(switchAgentRequestSchema), async (c) => {
    const id = c.req.param('id');
    const body = c.req.valid('json');
    const { session } = await requireAccess(deps.sessions, id, c.get('user'), 'editor');
    const agent = await requireAgent(deps.catalog, body.agent_id);
    await deps.sessions.updateSession(id, { agent_id: agent.id, updated_at: new Date().toISOString() });
    return c.json({ session: await deps.sessions.requireSession(id), from: session.agent_id, to: agent.id });
  });

  app.delete('/sessions/:id', describe({ summary: 'Delete a session (owners), stopping its run', responses: { 204: null } }), async (c) => {
    const id = c.req.param('id');
    await requireAccess(deps.sessions, id, c.get('user'), 'owner');
    await deleteSession(deps, id);
    return c.body(null, 204);
  });

  app.get('/sessions/:id/members', describe({ summary: "A session's members", responses: { 200: sessionMembersResponseSchema } }), async (c) => {
    const id = c.req.param('id');
    await requireAccess(deps.sessions, id, c.get('user'), 'viewer');
    return c.json({ members: await deps.sessions.listMembers(id) });
  });

  app.get('/sessions/:id/watchers', describe({ summary: 'The members with a live view of the session open now', responses: { 200: sessionWatchersResponseSchema } }), async (c) => {
    const id = c.req.param('id');
    await requireAccess(deps.sessions, id, c.get('user'), 'viewer');
    return c.json({ watchers: await deps.watchers.list(id) });
  });

  app.put('/sessions/:id/members/:user_id', describe({ summary: "Add a member or change a member's role (owners)", responses: { 200: sessionMemberResponseSchema, 201: sessionMemberResponseSchema } }), param(memberParams), json(memberRequestSchema), async (c) => {
    const { id, user_id: userId } = c.req.valid('param');
    const body = c.req.valid('json');
    const { session } = await requireAccess(deps.sessions, id, c.get('user'), 'owner');
    const existing = await deps.sessions.getMember(id, userId);
    if (existing) {
      if (existing.role !== body.role) await deps.sessions.changeMember(id, userId, body.role);
    } else {
      await deps.sessions.putMember(session, { user_id: userId, name: body.name, role: body.role, added_at: new Date().toISOString() });
    }
    return c.json({ member: await deps.sessions.getMember(id, userId) }, existing ? 200 : 201);
  });

  app.delete('/sessions/:id/members/:user_id', describe({ summary: 'Remove a member (owners), or leave', responses: { 204: null } }), async (c) => {
    const id = c.req.param('id');
    const userId = c.req.param('user_id');
    const me = c.get('user');
    // Anyone may leave; only owners remove others.
    await requireAccess(deps.sessions, id, me, userId === me.id ? 'viewer' : 'owner');
    await deps.sessions.changeMember(id, userId, undefined);
    return c.body(null, 204);
  });

  app.post('/sessions/:id/cancel', describe({ summary: "Stop the session's active run", responses: { 202: cancelResponseSchema, 409: cancelResponseSchema } }), async (c) => {
    const id = c.req.param('id');
    await requireAccess(deps.sessions, id, c.get('user'), 'editor');
    const lease = await deps.leases.inspect(id);
    if (!lease?.active || !lease.run_id) {
      // A run that waits for people holds no lease, and is over once cancelled: its calls take no decision after.
      const waiting = await cancelWaitingRun(deps, id);
      return waiting ? c.json({ cancelled: true, run_id: waiting }, 202) : c.json({ cancelled: false, reason: 'no run is active' }, 409);
    }
    const cancelled = await stopRun(deps, id, lease.run_id, 'cancelled');
    return c.json({ cancelled, run_id: lease.run_id }, cancelled ? 202 : 409);
  });

  app.get('/sessions/:id/events', describe({ summary: "Follow the session's events live, from `Last-Event-ID` or `after`; ends with a `reconnect` event when its time is up", responses: {}, events: streamEventSchema }), query(sessionEventsQuerySchema), async (c) => {
    const id = c.req.param('id');
    const user = c.get('user');
    const { member } = await requireAccess(deps.sessions, id, user, 'viewer');
    const hide = hidesThinking(deps, member.role);
    const { after } = c.req.valid('query');
    const cursor = c.req.header('last-event-id') ?? after;
    const position = parseEventId(cursor);
    if (cursor && !position) throw new ZeroError('invalid_request', 'the cursor must be an event id such as "12.3"', { field: 'after' });
    await wakeSession(deps, id);
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
    // And the session's own count, all its members together: one busy session cannot take every place.
    const releaseSession = await deps.streams.acquireSession(id, maxDurationMs + 60_000);
    if (!releaseSession) {
      await release();
      const limit = deps.streams.perSession;
      throw new ZeroError(
        'too_many_requests',
        `this session already has ${limit} live-view streams open, the most one session may (ZERO_MAX_STREAMS_PER_SESSION=${limit}); close one and retry`,
        { limit },
      );
    }
    return streamEvents(
      c,
      async function* (signal) {
        signal.addEventListener('abort', () => void release(), { once: true });
        signal.addEventListener('abort', () => void releaseSession(), { once: true });
        // Shown as "watching now" to the other members until the stream ends.
        const unwatch = await deps.watchers.watch(id, user, signal).catch(() => undefined);
        const watched = watchSession(deps, id, { after: position, signal });
        let last: string | undefined;
        try {
          for await (const event of hide ? eventsWithoutThinking(watched) : watched) {
            last = event.event_id;
            yield event;
          }
        } finally {
          // What this member has seen, written once when the stream ends rather than per event.
          const seen = parseEventId(last)?.seq;
          await Promise.all([unwatch?.(), seen ? deps.sessions.markSeen(id, user.id, seen).catch(() => undefined) : undefined]);
        }
      },
      { maxDurationMs, heartbeatMs: options.heartbeatMs },
    );
  });

  return app;
}
