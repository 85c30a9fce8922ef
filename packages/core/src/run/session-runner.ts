import { requireAgent } from '../agent/catalog';
import type { LocalRuns } from '../events/bus';
import { EventRecorder } from '../events/recorder';
import type { StreamEvent } from '../events/schema';
import { resolveModel } from '../model/anthropic';
import { LeaseLostError, type LeaseStore, type RunLease, type StopRequest } from '../store/lease-store';
import type { InboxMessage, LogRecord, NewLogRecord, SessionMeta } from '../store/records';
import { RunDelegator } from './delegate';
import { toMessages } from './history';
import { runLoop, type RunDeps } from './loop';

export interface SessionRunnerDeps extends RunDeps {
  leases: LeaseStore;
  runs: LocalRuns;
  /** Names this process in lease items. */
  instanceId: string;
  defaultAgentId: string;
  defaultModel: string;
  /** How often text events are written to the event log at the latest. */
  eventFlushMs?: number;
}

const STOP_REASONS: Record<StopRequest['reason'], string> = {
  cancelled: 'cancelled by request',
  interrupted: 'interrupted by a new message',
};

/**
 * Answers a session's waiting messages one run at a time, in arrival order,
 * for as long as this process holds the session's lease. Returns when the
 * inbox is empty or another process holds the lease (it will answer what
 * waits). Never throws for a run's failure; those are recorded in the log.
 */
export async function driveSession(deps: SessionRunnerDeps, sessionId: string): Promise<void> {
  for (;;) {
    const [next] = await deps.sessions.peekInbox(sessionId, 1);
    if (!next) return;
    const acquired = await deps.leases.acquire(sessionId, deps.instanceId, next.run_id);
    if (!acquired) return;
    try {
      await drain(deps, sessionId, acquired.lease, acquired.takeover);
    } finally {
      await deps.leases.release(acquired.lease).catch(() => undefined);
    }
    // A message may have arrived between the last look at the inbox and the release: look again.
  }
}

async function drain(deps: SessionRunnerDeps, sessionId: string, lease: RunLease, takeover: boolean) {
  let session = await deps.sessions.requireSession(sessionId);
  const history = await deps.sessions.readLog(sessionId);
  const lastLog = history.at(-1)?.seq ?? 0;
  const lastEvent = await deps.sessions.lastEventSeq(sessionId);
  if (takeover) await seal(deps, sessionId, lease, lastLog, lastEvent);
  await deps.leases.raise(lease, 'log', lastLog);
  await deps.leases.raise(lease, 'event', lastEvent);

  let current: { runId: string; controller: AbortController } | undefined;
  const applyStop = (stop: StopRequest | undefined) => {
    if (stop && current && stop.run_id === current.runId) current.controller.abort(STOP_REASONS[stop.reason]);
  };
  let lost = false;
  const heartbeat = setInterval(() => {
    deps.leases
      .heartbeat(lease)
      .then(applyStop)
      .catch((error) => {
        if (error instanceof LeaseLostError) {
          lost = true;
          current?.controller.abort('the run lost its lease to another instance');
        }
      });
  }, Math.max(1000, deps.leases.ttlMs / 3));

  try {
    while (!lost) {
      const [message] = await deps.sessions.peekInbox(sessionId, 1);
      if (!message) break;
      // Moved into the log before a crash, but not yet removed from the inbox.
      if (history.some((r) => r.kind === 'user_message' && r.message_id === message.message_id)) {
        await deps.sessions.removeFromInbox(sessionId, message.message_id);
        continue;
      }
      const controller = new AbortController();
      current = { runId: message.run_id, controller };
      session = await runMessage(deps, session, lease, message, history, controller, applyStop);
      current = undefined;
    }
  } finally {
    clearInterval(heartbeat);
  }
}

/** Writes `void` into positions a dead holder reserved but never wrote, so it can never write them later. */
async function seal(deps: SessionRunnerDeps, sessionId: string, lease: RunLease, lastLog: number, lastEvent: number) {
  for (let seq = lastLog + 1; seq <= lease.nextLog; seq++) {
    await deps.sessions.append(sessionId, seq, { kind: 'void', run_id: 'sealed' }).catch(() => undefined);
  }
  for (let seq = lastEvent + 1; seq <= lease.nextEvent; seq++) {
    await deps.sessions.putEvents(sessionId, { seq, run_id: 'sealed', events: [] }).catch(() => undefined);
  }
}

async function runMessage(
  deps: SessionRunnerDeps,
  session: SessionMeta,
  lease: RunLease,
  message: InboxMessage,
  history: LogRecord[],
  controller: AbortController,
  applyStop: (stop: StopRequest | undefined) => void,
): Promise<SessionMeta> {
  const sessionId = session.session_id;
  const runId = message.run_id;
  const recorder = new EventRecorder(
    {
      allocate: async () => {
        const { first, stop } = await deps.leases.allocate(lease, 'event');
        applyStop(stop);
        return first;
      },
      write: (seq, events) => deps.sessions.putEvents(sessionId, { seq, run_id: runId, events }),
    },
    deps.eventFlushMs,
  );
  await recorder.open();
  deps.runs.attach(sessionId, runId, recorder, controller);
  const emit = (event: StreamEvent) => recorder.emit(event);

  const append = async (record: NewLogRecord) => {
    if (recorder.failure) throw recorder.failure;
    const { first, stop } = await deps.leases.allocate(lease, 'log');
    const stored = await deps.sessions.append(sessionId, first, record);
    history.push(stored);
    applyStop(stop);
  };

  try {
    const agentId = message.agent_id ?? session.agent_id ?? deps.defaultAgentId;
    const agentOrError = await requireAgent(deps.catalog, agentId).catch((error: Error) => error);
    const agent = agentOrError instanceof Error ? await requireAgent(deps.catalog, session.agent_id).catch(() => undefined) : agentOrError;
    const requestedVoice = message.voice_mode ?? session.voice_mode;
    const voice = requestedVoice ?? agent?.default_voice ?? 'full';
    // The agent that answered the session's last message, before this one is recorded.
    const lastMessage = history.findLast((r): r is Extract<LogRecord, { kind: 'user_message' }> => r.kind === 'user_message' && !r.parent_run_id);
    const previousAgent = lastMessage?.agent_id ?? session.agent_id;
    const model = resolveModel(message.model ?? agent?.model, deps.defaultModel);

    await append({
      kind: 'user_message',
      run_id: runId,
      message_id: message.message_id,
      text: message.text,
      ...(message.author ? { author: message.author } : {}),
      agent_id: agent?.id ?? agentId,
      model,
      voice_mode: voice,
    });
    await deps.sessions.removeFromInbox(sessionId, message.message_id);
    emit({ type: 'start', session_id: sessionId, run_id: runId, agent_id: agent?.id ?? agentId });
    if (agent && agent.id !== previousAgent) emit({ type: 'agent_switch', from: previousAgent, to: agent.id, reason: 'switch', agent_id: agent.id, run_id: runId });
    emit({ type: 'message', message_id: message.message_id, text: message.text, ...(message.author ? { author: message.author } : {}), run_id: runId });

    const now = new Date().toISOString();
    const next: SessionMeta = { ...session, agent_id: agent?.id ?? session.agent_id, project_id: message.project_id ?? session.project_id, updated_at: now };
    await deps.sessions.updateSession(sessionId, { agent_id: next.agent_id, project_id: next.project_id, updated_at: now });

    if (!agent) {
      const error = { code: 'agent_not_found', message: `agent "${agentId}" is no longer available` };
      emit({ type: 'error', ...error, run_id: runId });
      const usage = { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, cost_usd: 0 };
      await append({ kind: 'run_end', run_id: runId, status: 'error', steps: 0, usage, reason: error.message, error });
      emit({ type: 'done', run_id: runId, status: 'error', steps: 0, usage, reason: error.message });
      return next;
    }

    await runLoop(
      deps,
      {
        sessionId,
        runId,
        agent,
        model,
        voice,
        projectId: next.project_id,
        messages: toMessages(history),
        append,
        signal: controller.signal,
        delegator: RunDelegator.forRun(
          { deps, defaultModel: deps.defaultModel, sessionId, projectId: next.project_id, voice: requestedVoice, history, append, emit, signal: controller.signal, deadline: Date.now() + deps.limits.wallTimeMs },
          agent,
          runId,
        ),
      },
      emit,
    );
    return next;
  } catch (error) {
    // Only storage failures reach here (the loop itself never throws): report them to readers.
    emit({ type: 'error', code: error instanceof LeaseLostError ? 'conflict' : 'internal', message: (error as Error).message, run_id: runId });
    throw error;
  } finally {
    await recorder.close();
    deps.runs.detach(sessionId, runId, recorder);
  }
}
