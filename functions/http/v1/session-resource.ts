import { requireAccess } from '@zero/runtime/sessions/access';
import { unfinishedRun } from '@zero/runtime/sessions/resume';
import type { AuthUser } from '@zero/runtime/auth/authenticator';
import type { SessionMeta } from '@zero/runtime/store';
import { agentOfSession, agentResource, managedSessionUsage, outcomeEvaluations, splitPinnedId } from '@zero/integrations/managed';
import { readSessionRecord, ZERO_ENVIRONMENT_ID, type ManagedSessionRecord } from '@zero/runtime/store/session-record';
import { sessionResourceView } from '@zero/integrations/environment-store';
import type { V1Deps } from './deps';

/**
 * A session as the Managed Agents API shows it (`BetaManagedAgentsSession`), from Zero's session and its `/v1` record.
 * `usage` (tokens and list cost summed over its finished runs) is read for one session (`withUsage`); a page of
 * sessions leaves it empty, as the type allows, rather than read every session's log.
 */
export async function sessionResource(deps: V1Deps, meta: SessionMeta, record?: ManagedSessionRecord, options: { withUsage?: boolean } = {}) {
  record ??= await readSessionRecord(deps.artifacts, meta.session_id);
  const [status, agent, usage, outcomes] = await Promise.all([
    statusOf(deps, meta.session_id),
    agentOfSession(deps, meta.agent_id),
    options.withUsage ? deps.sessions.readRunEnds(meta.session_id).then(managedSessionUsage) : {},
    // The outcomes and their grades are in the event log, read (as the usage) for one session only.
    options.withUsage ? deps.sessions.readEvents(meta.session_id, 0).then((batches) => outcomeEvaluations(batches.flatMap((b) => b.events))) : [],
  ]);
  const { type: _type, created_at: _c, updated_at: _u, archived_at: _a, metadata: _m, ...agentFields } = agent
    ? agentResource(agent.doc)
    : agentResource({ v: 2, id: meta.agent_id, version: 1, name: meta.agent_id, description: null, system: null, model: { id: deps.defaultModel }, tools: [], mcp_servers: [], metadata: {}, skills: [], multiagent: null, created_at: '', updated_at: '', archived_at: null, owner: null });
  return {
    type: 'session' as const,
    id: meta.session_id,
    agent: { type: 'agent' as const, ...agentFields },
    archived_at: record?.archived_at ?? null,
    budget: null,
    created_at: meta.created_at,
    environment_id: record?.environment_id ?? ZERO_ENVIRONMENT_ID,
    metadata: record?.metadata ?? {},
    outcome_evaluations: outcomes,
    resources: (record?.resources ?? []).map(sessionResourceView),
    stats: { duration_seconds: Math.max(0, Math.round((Date.now() - Date.parse(meta.created_at)) / 1000)) },
    status,
    title: record ? record.title : meta.title,
    updated_at: meta.updated_at,
    usage,
    vault_ids: record?.vaults?.ids ?? [],
  };
}

/** The session, checked for the caller's role, with its `/v1` record. */
export async function managedSession(deps: V1Deps, id: string, user: AuthUser, role: 'viewer' | 'editor' | 'owner') {
  const { session } = await requireAccess(deps.sessions, id, user, role);
  return { session, record: await readSessionRecord(deps.artifacts, id) };
}

/**
 * The API's status from Zero's run state: `running` while a run holds the session or a message waits
 * for the worker; `idle` when nothing runs, also while a run waits for a person (its last idle event
 * says `requires_action`); `rescheduling` when a run is unfinished and nobody holds it (its process
 * died: the next read or watch of the session carries it on).
 */
async function statusOf(deps: V1Deps, sessionId: string): Promise<'running' | 'idle' | 'rescheduling'> {
  const [lease, tail, waiting] = await Promise.all([deps.leases.inspect(sessionId), deps.sessions.readLogTail(sessionId, 50), deps.sessions.peekInbox(sessionId, 1)]);
  if (lease?.active) return 'running';
  const open = unfinishedRun(tail);
  if (open?.waiting) return 'idle';
  if (open) return 'rescheduling';
  return waiting.length ? 'running' : 'idle';
}

/** The record of a session made through `/api/v2`, which has none until `/v1` changes it. */
export const defaultRecord = (session: SessionMeta): ManagedSessionRecord => ({
  v: 1,
  agent_id: splitPinnedId(session.agent_id).id,
  agent_version: splitPinnedId(session.agent_id).version ?? 1,
  environment_id: ZERO_ENVIRONMENT_ID,
  title: session.title,
  metadata: {},
  archived_at: null,
  custom_tools: [],
});
