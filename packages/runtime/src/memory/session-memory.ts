import type { AgentDefinition } from '@zero/agent/definitions/definition';
import type { ProjectAccess } from '../projects/project-access';
import type { Role } from '../store/records';
import type { SessionStore } from '../store/session-store';
import type { MemoryStore } from './memory-store';
import type { MemoryIndex } from '@zero/agent/loop/memory-index';
import type { MemoryStoreRef } from './paths';

/** The store a session's agent keeps its memory in, or why it has none here (phrased for the model). */
export type SessionMemory =
  | {
      ok: true;
      /** A session's agent keeps its memory in its person's or its project's store (an API store is reached through the API). */
      store: Exclude<MemoryStoreRef, { kind: 'store' }>;
      /** A project store that more than one person may use: writing it asks a person by default. */
      shared: boolean;
      /** The session's role in the project, for a project store: viewers read, editors write. */
      role?: Role;
    }
  | { ok: false; reason: string };

/**
 * Which memory store a session's agent uses. `user`: the store of the person
 * who started the session, open only while they are its only member (their
 * memory is theirs alone; a member added later would read it through the
 * model). `project`: the store of the session's project, open as far as the
 * session's tools may use the project (see ProjectAccess.sessionRole).
 */
export async function sessionMemory(
  services: { sessions: SessionStore; projectAccess: ProjectAccess },
  sessionId: string,
  agent: Pick<AgentDefinition, 'id' | 'memory'>,
  projectId: string | undefined,
): Promise<SessionMemory> {
  if (!agent.memory) return { ok: false, reason: `agent "${agent.id}" keeps no memory (its file sets no "memory:" field)` };
  if (agent.memory === 'user') {
    const [session, members] = await Promise.all([services.sessions.getSession(sessionId), services.sessions.listMembers(sessionId)]);
    const owner = session?.created_by;
    if (!owner) return { ok: false, reason: 'this conversation was started by no one in particular, so it has no user memory' };
    if (members.some((m) => m.user_id !== owner)) {
      return { ok: false, reason: `the user memory is private to the person who started this conversation, and others are members of it: it is closed here` };
    }
    return { ok: true, store: { kind: 'user', userId: owner }, shared: false };
  }
  if (!projectId) return { ok: false, reason: 'no project is selected for this conversation, so there is no project memory' };
  const role = await services.projectAccess.sessionRole(sessionId, projectId);
  if (!role) return { ok: false, reason: `project "${projectId}" does not exist or is not shared with everyone in this conversation` };
  const people = await services.projectAccess.members.listMembers(projectId);
  return { ok: true, store: { kind: 'project', projectId }, shared: people.length > 1, role };
}

export type { MemoryIndex };

/** The memory index for a run's prompt; undefined for an agent without memory. Must not throw: a failure is `unavailable`. */
export async function memoryIndexFor(
  services: { sessions: SessionStore; projectAccess: ProjectAccess; memory?: MemoryStore },
  sessionId: string,
  agent: Pick<AgentDefinition, 'id' | 'memory'>,
  projectId: string | undefined,
): Promise<MemoryIndex | undefined> {
  if (!agent.memory) return undefined;
  try {
    if (!services.memory) return { unavailable: 'this deployment keeps no memory' };
    const resolved = await sessionMemory(services, sessionId, agent, projectId);
    if (!resolved.ok) return { unavailable: resolved.reason };
    const entries = await services.memory.list(resolved.store);
    const store = resolved.store.kind === 'user' ? 'the memory of the person who started this conversation' : `the shared memory of project "${resolved.store.projectId}"`;
    return { store, entries };
  } catch (error) {
    return { unavailable: `the memory could not be listed (${error instanceof Error ? error.message : String(error)})` };
  }
}
