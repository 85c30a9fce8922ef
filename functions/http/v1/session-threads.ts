import { Hono } from 'hono';
import * as z from 'zod';
import { conflict, invalidField, notFound } from '@zero/agent/errors';
import type { LogRecord } from '@zero/runtime/store/records';
import type { SessionMeta } from '@zero/runtime/store';
import { agentOfSession, agentResource } from '@zero/integrations/managed';
import { PRIMARY_THREAD_ID, parentThreadIdOf, runIdOfThread, threadIdOf } from '@zero/integrations/managed/session-threads';
import type { Env } from '../env';
import type { V1Deps } from './deps';
import { query } from './validate';
import { pageOf, pageQuery } from './pages';
import { listManagedEvents, listQuery, streamManagedEvents, streamQuery } from './events';
import { managedSession, sessionResource } from './session-resource';

const statusSchema = z.enum(['running', 'idle', 'rescheduling', 'terminated']);
type ThreadStatus = z.infer<typeof statusSchema>;

/** `statuses[]` (`ThreadListParams`): the SDK sends one `statuses[]=` per value. */
const threadListQuery = z.object({ ...pageQuery, 'statuses[]': z.union([statusSchema, z.array(statusSchema)]).optional() });

/** An archived thread: `sessions/<id>/managed-threads/<thread id>.json`, under the session's prefix (deleting the session deletes it). */
const archiveSchema = z.object({ v: z.literal(1), archived_at: z.string() });
const archiveKey = (sessionId: string, threadId: string) => `sessions/${sessionId}/managed-threads/${threadId}.json`;

/** A delegated run as the log shows it: its task's record, and its records since. */
interface ThreadRun {
  runId: string;
  agentId: string;
  records: LogRecord[];
}

/** The session's delegated runs, in the order they started (a run that waited and resumed is one thread). */
function threadRuns(history: readonly LogRecord[]): ThreadRun[] {
  const runs = new Map<string, ThreadRun>();
  for (const record of history) {
    if (!record.parent_run_id) continue;
    const run = runs.get(record.run_id);
    if (run) run.records.push(record);
    else if (record.kind === 'user_message') runs.set(record.run_id, { runId: record.run_id, agentId: record.agent_id, records: [record] });
  }
  return [...runs.values()];
}

/**
 * `/v1/sessions/:id/threads` (`client.beta.sessions.threads`): the session's primary thread (the session's own
 * runs) and a child thread for each delegation its agents made (Zero's `delegate_agent`; a coordinator's
 * `multiagent` roster). Threads are read from the session's log; archiving one is the only thing stored.
 * Viewers read; editors archive.
 */
export function sessionThreadRoutes(deps: V1Deps) {
  const app = new Hono<Env>();

  /** A child thread as the API shows it (`BetaManagedAgentsSessionThread`). */
  const childThread = async (sessionId: string, run: ThreadRun, archived: Map<string, string>) => {
    const id = threadIdOf(run.runId);
    const first = run.records[0]!;
    const last = run.records.at(-1)!;
    const ended = run.records.findLast((r) => r.kind === 'run_end' || r.kind === 'run_wait');
    // A thread that waited and was carried on runs again after its wait (a decision alone does not carry it on).
    const running = !ended || run.records.slice(run.records.indexOf(ended) + 1).some((r) => r.kind === 'assistant' || r.kind === 'tool_result');
    const archivedAt = archived.get(id) ?? null;
    const status: ThreadStatus = archivedAt ? 'terminated' : running ? 'running' : 'idle';
    const usage = { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0 };
    for (const r of run.records) {
      if (r.kind !== 'assistant') continue;
      usage.input_tokens += r.usage.input_tokens;
      usage.output_tokens += r.usage.output_tokens;
      usage.cache_read_input_tokens += r.usage.cache_read_input_tokens;
    }
    return {
      type: 'session_thread' as const,
      id,
      session_id: sessionId,
      agent: await threadAgent(run.agentId),
      archived_at: archivedAt,
      created_at: first.at,
      updated_at: last.at,
      parent_thread_id: parentThreadIdOf(run.runId),
      stats: { duration_seconds: Math.max(0, Math.round((Date.parse(last.at) - Date.parse(first.at)) / 1000)) },
      status,
      usage,
      workflow_run_id: null,
    };
  };

  /** The primary thread: the session's own agent and status. */
  const primaryThread = async (session: SessionMeta) => {
    const resource = await sessionResource(deps, session);
    return {
      type: 'session_thread' as const,
      id: PRIMARY_THREAD_ID,
      session_id: session.session_id,
      agent: await threadAgent(session.agent_id),
      archived_at: null,
      created_at: session.created_at,
      updated_at: session.updated_at,
      parent_thread_id: null,
      stats: resource.stats,
      status: resource.status as ThreadStatus,
      usage: null,
      workflow_run_id: null,
    };
  };

  /** The agent a thread runs (`BetaManagedAgentsSessionThreadAgent`), the version it ran. */
  const threadAgent = async (zeroAgentId: string) => {
    const found = await agentOfSession(deps, zeroAgentId);
    const doc = found?.doc ?? { v: 2 as const, id: zeroAgentId, version: 1, name: zeroAgentId, description: null, system: null, model: { id: deps.defaultModel }, tools: [], mcp_servers: [], metadata: {}, skills: [], multiagent: null, created_at: '', updated_at: '', archived_at: null, owner: null };
    const { created_at: _c, updated_at: _u, archived_at: _a, metadata: _m, multiagent: _ma, ...agent } = agentResource(doc);
    return agent;
  };

  const archivedThreads = async (sessionId: string) => {
    const out = new Map<string, string>();
    const prefix = `sessions/${sessionId}/managed-threads/`;
    for (const { key } of await deps.artifacts.list(prefix)) {
      const parsed = archiveSchema.safeParse(await deps.artifacts.getJson(key).catch(() => undefined));
      if (parsed.success) out.set(key.slice(prefix.length, -'.json'.length), parsed.data.archived_at);
    }
    return out;
  };

  /** Every thread of the session: the primary first, then each delegation's in the order it started. */
  const threadsOf = async (session: SessionMeta) => {
    const [history, archived] = await Promise.all([deps.sessions.readLog(session.session_id), archivedThreads(session.session_id)]);
    const children = await Promise.all(threadRuns(history).map((run) => childThread(session.session_id, run, archived)));
    return [await primaryThread(session), ...children];
  };

  /** One thread of the session, or a 404 naming `thread_id` (also for an id this session never handed out). */
  const threadOf = async (session: SessionMeta, threadId: string) => {
    if (threadId === PRIMARY_THREAD_ID) return primaryThread(session);
    const runId = runIdOfThread(threadId);
    const history = runId ? await deps.sessions.readLog(session.session_id) : [];
    const run = threadRuns(history).find((r) => r.runId === runId);
    if (!run) throw notFound(`no thread "${threadId}" in session "${session.session_id}"`, 'thread_id');
    return childThread(session.session_id, run, await archivedThreads(session.session_id));
  };

  app.get('/sessions/:id/threads', query(threadListQuery), async (c) => {
    const { session } = await managedSession(deps, c.req.param('id'), c.get('user'), 'viewer');
    const q = c.req.valid('query');
    // Every `statuses[]` value, not the query's first (each checked as the first was).
    const parsed = z.array(statusSchema).safeParse(c.req.queries('statuses[]') ?? []);
    if (!parsed.success) throw invalidField('statuses', `each must be one of ${statusSchema.options.join(', ')}`);
    const statuses = parsed.data;
    const threads = (await threadsOf(session)).filter((t) => !statuses.length || statuses.includes(t.status));
    return c.json(pageOf(threads, q));
  });

  app.get('/sessions/:id/threads/:thread_id', async (c) => {
    const { session } = await managedSession(deps, c.req.param('id'), c.get('user'), 'viewer');
    return c.json(await threadOf(session, c.req.param('thread_id')));
  });

  app.post('/sessions/:id/threads/:thread_id/archive', async (c) => {
    const { session } = await managedSession(deps, c.req.param('id'), c.get('user'), 'editor');
    const threadId = c.req.param('thread_id');
    if (threadId === PRIMARY_THREAD_ID) throw invalidField('thread_id', 'the primary thread is the session itself: archive the session');
    const thread = await threadOf(session, threadId);
    if (thread.archived_at) return c.json(thread);
    // A delegation in progress is its caller's tool call: it ends with the call (or with `user.interrupt`), not on its own.
    if (thread.status === 'running') throw conflict(`thread "${threadId}" is running; interrupt the session (user.interrupt) and archive it once it is idle`, { field: 'thread_id' });
    const archived_at = new Date().toISOString();
    await deps.artifacts.putJson(archiveKey(session.session_id, threadId), archiveSchema.parse({ v: 1, archived_at }));
    return c.json({ ...thread, archived_at, status: 'terminated' as const });
  });

  /** The delegated run a thread's events are, after checking the caller may read the session (undefined: the primary thread). */
  const threadRunOf = async (c: { req: { param: (name: 'id' | 'thread_id') => string }; get: (key: 'user') => Env['Variables']['user'] }) => {
    const { session } = await managedSession(deps, c.req.param('id'), c.get('user'), 'viewer');
    const thread = await threadOf(session, c.req.param('thread_id'));
    return thread.id === PRIMARY_THREAD_ID ? undefined : runIdOfThread(thread.id);
  };

  app.get('/sessions/:id/threads/:thread_id/events', query(listQuery), async (c) => listManagedEvents(deps, c, c.req.param('id'), c.req.valid('query'), await threadRunOf(c)));
  app.get('/sessions/:id/threads/:thread_id/stream', query(streamQuery), async (c) => streamManagedEvents(deps, c, c.req.param('id'), c.req.valid('query'), await threadRunOf(c)));

  return app;
}
