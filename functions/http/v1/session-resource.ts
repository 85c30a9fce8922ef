import { requireAccess, type AuthUser } from '@zero/core';
import type { SessionMeta } from '@zero/core/store';
import { agentOfSession, agentResource, readSessionRecord, ZERO_ENVIRONMENT_ID, type ManagedSessionRecord } from '@zero/core/managed';
import type { V1Deps } from './deps';

/** A session as the Managed Agents API shows it (`BetaManagedAgentsSession`), from Zero's session and its `/v1` record. */
export async function sessionResource(deps: V1Deps, meta: SessionMeta, record?: ManagedSessionRecord) {
  record ??= await readSessionRecord(deps.artifacts, meta.session_id);
  const [lease, agent] = await Promise.all([deps.leases.inspect(meta.session_id), agentOfSession(deps, meta.agent_id)]);
  const { type: _type, created_at: _c, updated_at: _u, archived_at: _a, metadata: _m, ...agentFields } = agent
    ? agentResource(agent.doc)
    : agentResource({ v: 1, id: meta.agent_id, version: 1, name: meta.agent_id, description: null, system: null, model: { id: deps.defaultModel }, tools: [], metadata: {}, created_at: '', updated_at: '', archived_at: null });
  return {
    type: 'session' as const,
    id: meta.session_id,
    agent: { type: 'agent' as const, ...agentFields },
    archived_at: record?.archived_at ?? null,
    budget: null,
    created_at: meta.created_at,
    environment_id: record?.environment_id ?? ZERO_ENVIRONMENT_ID,
    metadata: record?.metadata ?? {},
    outcome_evaluations: [],
    resources: [],
    stats: {},
    // A run that waits for a person has released the session: idle, with `requires_action` in its last idle event.
    status: lease?.active ? ('running' as const) : ('idle' as const),
    title: record ? record.title : meta.title,
    updated_at: meta.updated_at,
    usage: {},
    vault_ids: [],
  };
}

/** The session, checked for the caller's role, with its `/v1` record. */
export async function managedSession(deps: V1Deps, id: string, user: AuthUser, role: 'viewer' | 'editor' | 'owner') {
  const { session } = await requireAccess(deps.sessions, id, user, role);
  return { session, record: await readSessionRecord(deps.artifacts, id) };
}
