import type { LoadBudgets } from '../budgets/limits';
import type { LoadRateLimiter } from '../rate-limits/limits';
import type { ProjectAccess } from '../projects/project-access';
import type { InboxMessage } from '../store/items/inbox-message';
import type { SessionMeta } from '../store/records';
import type { SessionStore } from '../store/session-store';
import type { Role } from '@zero/agent/wire';
import type { RunQueue } from './queue';
import { admitMessage } from './admit-message';

/** What starts a session with nobody at the keyboard: its stores, the run queue, and who is told of new sessions. */
export interface UnattendedDeps {
  sessions: SessionStore;
  projectAccess: ProjectAccess;
  queue: RunQueue;
  onSessionCreated?: (session: SessionMeta) => Promise<void>;
  budgets?: LoadBudgets;
  rateLimits?: LoadRateLimiter;
}

/** A session a webhook or a schedule starts: a person owns it, members follow it, one message starts its run. */
export interface UnattendedSession {
  sessionId: string;
  runId: string;
  /** One line; cut to 200 characters. */
  title: string;
  agentId: string;
  projectId?: string;
  owner: { user_id: string; name?: string };
  members: readonly { user_id: string; name?: string; role: Role }[];
  /** Whom the project is granted through (a hook's id, `schedule-<id>`), so the session's tools may use it. */
  grantAs: string;
  text: string;
  author: { id: string; name: string };
  /** Tools the session's client answers (a Managed Agents deployment's custom tools), offered to its run. */
  clientTools?: NonNullable<InboxMessage['client_tools']>;
  /** Why the run job was queued (`webhook`, `schedule`). */
  reason: string;
  /** Other items written beside the session's own (a webhook's summary), given the creation time. */
  alongside?: (now: string) => Promise<unknown>[];
  /**
   * Finishes a start whose process died part way (a schedule's sweep): the session is kept if it was
   * made, and the message is put in its inbox only when neither the inbox nor the log holds its run.
   */
  again?: boolean;
}

/**
 * Creates the session as its owner's, then writes its members, the project's
 * grant, whatever goes `alongside` and the message in its inbox side by side,
 * all settled before any failure is reported (the caller then deletes the
 * session, and no write may land after that); then queues the run and tells
 * subscribers.
 */
export async function startUnattended(deps: UnattendedDeps, start: UnattendedSession): Promise<SessionMeta> {
  // Started for its owner: a suspended owner's (or a spent budget's) hooks and schedules start nothing.
  await admitMessage(deps, start.owner.user_id);
  const now = new Date().toISOString();
  const title = start.title.replace(/\s+/g, ' ').trim();
  const made = start.again ? await deps.sessions.getSession(start.sessionId) : undefined;
  const session = made ?? await deps.sessions.createSession(
    {
      session_id: start.sessionId,
      title: title.length > 200 ? `${title.slice(0, 197)}...` : title,
      agent_id: start.agentId,
      project_id: start.projectId,
      created_by: start.owner.user_id,
      created_at: now,
      updated_at: now,
    },
    start.owner,
  );
  const members = start.members.filter((m) => m.user_id !== start.owner.user_id);
  const written = await Promise.allSettled([
    ...members.map((m) => deps.sessions.putMember(session, { user_id: m.user_id, name: m.name, role: m.role, added_at: now })),
    ...(start.projectId ? [deps.projectAccess.grantHook(start.projectId, start.grantAs, [{ ...start.owner, role: 'owner' as const }, ...members])] : []),
    ...(start.alongside?.(now) ?? []),
    ...((made && (await hasRun(deps, start)))
      ? []
      : [deps.sessions.enqueue(start.sessionId, {
          run_id: start.runId,
          text: start.text,
          author: start.author,
          agent_id: start.agentId,
          project_id: start.projectId,
          at: now,
          ...(start.clientTools?.length ? { client_tools: start.clientTools } : {}),
        })]),
  ]);
  const failed = written.find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
  await deps.queue.send({ session_id: start.sessionId, reason: start.reason });
  await deps.onSessionCreated?.(session);
  return session;
}

/** Whether the session's inbox or log already holds the start's run (a start that died after its message). */
async function hasRun(deps: UnattendedDeps, start: UnattendedSession): Promise<boolean> {
  const [inbox, log] = await Promise.all([deps.sessions.peekInbox(start.sessionId, 100), deps.sessions.readLogTail(start.sessionId, 50)]);
  return inbox.some((m) => m.run_id === start.runId) || log.some((r) => r.run_id === start.runId);
}
