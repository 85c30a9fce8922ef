import { randomUUID } from 'node:crypto';
import { requireAgent } from '../agent/catalog';
import { EventChannel } from '../events/channel';
import type { ChatRequest, StreamEvent } from '../events/schema';
import { resolveModel } from '../model/anthropic';
import type { SessionMeta } from '../store/records';
import { toMessages } from './history';
import { runLoop, type RunDeps, type RunOutcome } from './loop';

export interface ChatDeps extends RunDeps {
  defaultAgentId: string;
  defaultModel: string;
}

/** An event as it goes on the wire: with the id a client reconnects from. */
export type IdentifiedEvent = StreamEvent & { event_id: string };

export interface ChatRun {
  session: SessionMeta;
  runId: string;
  events: EventChannel<IdentifiedEvent>;
  /** Settles when the run is over and persisted; never rejects. */
  outcome: Promise<RunOutcome>;
}

export interface Author {
  id: string;
  name?: string;
}

/**
 * Accepts a chat message: validates the agent and session (throwing a 4xx
 * ZeroError before anything is written), persists the user's message, and
 * starts the run in the background. The run does not depend on anyone
 * reading its events: a client that disconnects loses nothing.
 */
export async function startChat(deps: ChatDeps, request: ChatRequest, author?: Author): Promise<ChatRun> {
  const existing = request.session_id ? await deps.sessions.requireSession(request.session_id) : undefined;
  const agentId = request.agent_id ?? existing?.agent_id ?? deps.defaultAgentId;
  const agent = await requireAgent(deps.catalog, agentId);
  const now = new Date().toISOString();

  let session: SessionMeta;
  if (existing) {
    session = { ...existing, agent_id: agent.id, project_id: request.project_id ?? existing.project_id, updated_at: now };
  } else {
    session = await deps.sessions.createSession({
      session_id: randomUUID(),
      title: titleFrom(request.message),
      agent_id: agent.id,
      project_id: request.project_id,
      voice_mode: request.voice_mode,
      created_at: now,
      updated_at: now,
    });
  }

  const history = existing ? await deps.sessions.readLog(session.session_id) : [];
  const runId = `run_${randomUUID()}`;
  const voice = request.voice_mode ?? session.voice_mode ?? agent.default_voice;
  const model = resolveModel(request.model ?? agent.model, deps.defaultModel);
  const seq = (history.at(-1)?.seq ?? 0) + 1;
  const userRecord = await deps.sessions.append(session.session_id, seq, {
    kind: 'user_message',
    run_id: runId,
    text: request.message,
    ...(author ? { author } : {}),
    agent_id: agent.id,
    model,
    voice_mode: voice,
  });
  if (existing) {
    await deps.sessions.updateSession(session.session_id, { updated_at: now, agent_id: agent.id, project_id: session.project_id });
  }

  const events = new EventChannel<IdentifiedEvent>();
  let n = 0;
  const emit = (event: StreamEvent) => events.push({ ...event, event_id: `${runId}.${++n}` });
  emit({ type: 'start', session_id: session.session_id, run_id: runId, agent_id: agent.id });

  const outcome = runLoop(
    deps,
    {
      sessionId: session.session_id,
      runId,
      agent,
      model,
      voice,
      projectId: session.project_id,
      messages: toMessages([...history, userRecord]),
      nextSeq: seq + 1,
    },
    emit,
  ).finally(() => events.close());
  return { session, runId, events, outcome };
}

function titleFrom(message: string): string {
  const line = message.trim().split('\n')[0] ?? '';
  return line.length > 80 ? `${line.slice(0, 77)}...` : line;
}
