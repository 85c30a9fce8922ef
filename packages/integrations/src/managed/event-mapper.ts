import { compareEventPositions, parseEventId, type EventPosition } from '@zero/agent/events/ids';
import type { IdentifiedEvent } from '@zero/agent/events/recorder';
import type { StreamEvent, Usage } from '@zero/agent/wire';
import { userMessageContent } from './user-message-content';
import { STOP_REASONS } from '@zero/agent/loop/stop-reasons';
import { sumManagedUsage } from './session-usage';
import { TOOLSET_TOOLS } from './toolset';
import { callerRunOf, isDelegatedRun, parentThreadIdOf, threadIdOf } from './session-threads';

/** Zero's tool that hands a task to another agent: each call that delegates is a child thread. */
const DELEGATE_TOOL = 'delegate_agent';

/**
 * One event of the Managed Agents API, with the position in Zero's event log it comes from, and
 * `k`, its place among the events mapped from that position: together its cursor (SSE id, page).
 * A preview (`event_start`, `event_delta`: only on a stream that asks for them) has no id and no
 * cursor of its own (`k` -1): it is never in the list, and a stream resumes after the events it previews.
 */
export interface ManagedEvent {
  position: EventPosition;
  k: number;
  preview?: true;
  event: { type: string; id?: string; processed_at?: string } & Record<string, unknown>;
}

/** The events a stream may preview (`event_deltas`, `BetaManagedAgentsDeltaType`). */
export type PreviewType = 'agent.message' | 'agent.thinking';

/** The id of the `user.interrupt` that stopped a run: the same in `POST …/events`' answer and in the log. */
export const interruptEventId = (runId: string) => `sevt_interrupt_${runId}`;

/** A mapped event's cursor, `<seq>.<index>.<k>`. */
export const managedCursor = (e: Pick<ManagedEvent, 'position' | 'k'>) => `${e.position.seq}.${e.position.index}.${e.k}`;

/** Parses a cursor (`"12.3.1"`, or Zero's `"12.3"`); undefined when malformed. */
export function parseManagedCursor(value: string): Pick<ManagedEvent, 'position' | 'k'> | undefined {
  const match = /^(\d{1,12})\.(\d{1,6})(?:\.(\d{1,3}))?$/.exec(value.trim());
  if (!match) return undefined;
  return { position: { seq: Number(match[1]), index: Number(match[2]) }, k: match[3] === undefined ? Number.MAX_SAFE_INTEGER : Number(match[3]) };
}

/** Orders two mapped events (or cursors) as they were mapped. */
export const compareManaged = (a: Pick<ManagedEvent, 'position' | 'k'>, b: Pick<ManagedEvent, 'position' | 'k'>) => compareEventPositions(a.position, b.position) || a.k - b.k;

/** Zero's tool names as the Managed Agents toolset calls them (`run_command` is `bash`). */
const TOOLSET_NAMES = Object.fromEntries(Object.entries(TOOLSET_TOOLS).map(([k, v]) => [v, k])) as Record<string, string>;

const eventId = (p: EventPosition) => `sevt_${p.seq}_${p.index}`;
const text = (t: string) => [{ type: 'text' as const, text: t }];

/**
 * Maps Zero's one internal event stream to the Managed Agents API's events, at the edge (as the
 * `useChat` stream does). Stateful: text deltas become one `agent.message`, written when the next
 * event that is not text arrives (the run's `done` at the latest). Every event mapped has the
 * position of the last Zero event it took, so positions only grow and a reader that resumes after
 * one position, replaying the log through a fresh mapper, misses and repeats nothing.
 *
 * A message's id is its first piece's position, so previews of it (`previews`) name the id it ends with.
 *
 * `customTools`: the names of the session's custom tools, whose calls are `agent.custom_tool_use`.
 * `environmentTools`: a self-hosted environment's tools, whose results a worker sends (`user.tool_result`).
 * `thread`: the delegated run whose thread is shown (see session-threads.ts); absent: the primary thread.
 * Each thread shows its own run's events; a delegation it makes shows as `session.thread_created`,
 * `agent.thread_message_sent` (the task), the child's status events and `agent.thread_message_received`
 * (its answer), and the child's thread starts with the task received and ends idle.
 */
export function createEventMapper(
  customTools: ReadonlySet<string>,
  now: () => string = () => new Date().toISOString(),
  environmentTools: ReadonlySet<string> = new Set(),
  previews: ReadonlySet<PreviewType> = new Set(),
  thread?: string,
) {
  let message: { text: string; id: string; position: EventPosition } | undefined;
  let thinking: { id: string; position: EventPosition } | undefined;
  /** Each run's usage as its latest `done` gave it (a run that waited for people ends with all of it): summed, the session's. */
  const runUsage = new Map<string, Usage>();
  let spanStart: string | undefined;
  /** A run's `start`, held until the next event: the API has the user's message before the session runs. */
  let started: EventPosition | undefined;
  const customCalls = new Set<string>();
  /** Each outcome evaluation's start event id, by outcome and iteration, for its end's `outcome_evaluation_start_id`. */
  const outcomeStarts = new Map<string, string>();
  const environmentCalls = new Set<string>();
  /** Each `delegate_agent` call's task, by call id: what its thread is sent. */
  const tasks = new Map<string, string>();
  /** Each delegation's answer, by the caller's call id, once its child returned: what the caller receives. */
  const answered = new Map<string, { runId: string; agent: string }>();
  /** The child threads already shown created (a child that waited for a person starts again when it resumes). */
  const created = new Set<string>();
  /** The calls a delegated run asked a person about, by call id: its run and agent. */
  const asked = new Map<string, { runId: string; agent: string }>();
  let last: { position: EventPosition; k: number } | undefined;
  /** The next `k` at a position: 0 for its first event. */
  const kAt = (position: EventPosition) => {
    const k = last && compareEventPositions(last.position, position) === 0 ? last.k + 1 : 0;
    last = { position, k };
    return k;
  };

  const flush = (out: ManagedEvent[]) => {
    if (message && message.text) out.push({ position: message.position, k: kAt(message.position), event: { id: message.id, type: 'agent.message', processed_at: now(), content: text(message.text) } });
    if (thinking) out.push({ position: thinking.position, k: kAt(thinking.position), event: { id: thinking.id, type: 'agent.thinking', processed_at: now() } });
    message = undefined;
    thinking = undefined;
  };

  return function map(identified: IdentifiedEvent): ManagedEvent[] {
    const { event_id, ...event } = identified;
    const position = parseEventId(event_id) ?? { seq: 0, index: 0 };
    const e = event as StreamEvent;
    const out: ManagedEvent[] = [];
    const at = 'at' in e && typeof e.at === 'string' ? e.at : now();
    const emit = (type: string, fields: Record<string, unknown> = {}, id = eventId(position), where = position) =>
      out.push({ position: where, k: kAt(where), event: { id, type, processed_at: at, ...fields } });
    const preview = (event: ManagedEvent['event']) => out.push({ position, k: -1, preview: true, event });

    // The thread each event is on: a delegated run's events carry its caller's run id (`parent_run_id`).
    const runId = 'run_id' in e ? e.run_id : undefined;
    const parentRunId = 'parent_run_id' in e ? e.parent_run_id : undefined;
    if (e.type === 'tool_call' && e.name === DELEGATE_TOOL) tasks.set(e.id, taskOf(e.input));
    if (e.type === 'confirmation_required' && parentRunId && runId) asked.set(e.id, { runId, agent: e.agent_id ?? '' });
    const delegation = e.type === 'agent_switch' && parentRunId && runId && e.tool_call_id && e.reason !== 'switch' ? { e, runId, parentRunId } : undefined;
    // The top-level run waits on a delegated run's calls: that thread idles (on its stream and its caller's).
    const waits = e.type === 'done' && e.status === 'awaiting_approval' && !parentRunId;
    const onThread = e.type === 'approval' && runId && isDelegatedRun(runId) ? runId : parentRunId ? runId : undefined;
    const shown = delegation
      ? delegation.runId === thread || (isDelegatedRun(delegation.parentRunId) ? delegation.parentRunId : undefined) === thread
      : // A decision on a delegated run's call shows on its thread and on the primary thread, where the person answered it.
        onThread === thread || (e.type === 'approval' && thread === undefined) || (waits && thread !== undefined);
    if (!shown) return out;

    if (started && e.type !== 'start') {
      // The API has the user's message before the session runs: the held start follows a `message`,
      // at the message's position (its ids keep the start's), so positions never go back.
      const startPosition = started;
      started = undefined;
      if (e.type === 'message') {
        userMessage(e, emit);
        spanStart = `${eventId(startPosition)}_span`;
        emit('session.status_running', {}, eventId(startPosition));
        emit('span.model_request_start', {}, spanStart);
        return out;
      }
      spanStart = `${eventId(startPosition)}_span`;
      emit('session.status_running', {}, eventId(startPosition), startPosition);
      emit('span.model_request_start', {}, spanStart, startPosition);
    }
    if (delegation || (waits && thread !== undefined)) {
      flush(out);
      if (delegation) threadSwitch(delegation.e as Extract<StreamEvent, { type: 'agent_switch' }>, delegation.runId, delegation.parentRunId, emit, eventId(position));
      else threadsWaiting((e as Extract<StreamEvent, { type: 'done' }>).pending ?? [], emit);
      return out;
    }
    if (e.type === 'text') {
      if (thinking) flush(out);
      const id = message?.id ?? eventId(position);
      if (previews.has('agent.message')) {
        if (!message) preview({ type: 'event_start', event: { id, type: 'agent.message' } });
        if (e.delta) preview({ type: 'event_delta', event_id: id, delta: { type: 'content_delta', index: 0, content: { type: 'text', text: e.delta } } });
      }
      message = { text: (message?.text ?? '') + e.delta, id, position };
      return out;
    }
    if (e.type === 'thinking') {
      if (message) flush(out);
      const id = thinking?.id ?? eventId(position);
      // Start-only: the agent.thinking event itself concludes it.
      if (!thinking && previews.has('agent.thinking')) preview({ type: 'event_start', event: { id, type: 'agent.thinking' } });
      thinking = { id, position };
      return out;
    }
    if (e.type === 'tool_call_delta') return out;
    if (e.type === 'retry') {
      // The failed attempt's text is discarded, as every client of Zero's stream does: the redone step says it again.
      message = undefined;
      thinking = undefined;
    }
    flush(out);
    switch (e.type) {
      case 'start':
        started = position;
        break;
      case 'message':
        userMessage(e, emit);
        break;
      case 'outcome_evaluation': {
        const key = `${e.outcome_id}#${e.iteration}`;
        if (e.phase === 'start') {
          outcomeStarts.set(key, eventId(position));
          emit('span.outcome_evaluation_start', { outcome_id: e.outcome_id, iteration: e.iteration });
        } else if (e.phase === 'ongoing') {
          emit('span.outcome_evaluation_ongoing', { outcome_id: e.outcome_id, iteration: e.iteration });
        } else {
          const u = e.usage;
          emit('span.outcome_evaluation_end', {
            outcome_id: e.outcome_id,
            iteration: e.iteration,
            outcome_evaluation_start_id: outcomeStarts.get(key) ?? `${eventId(position)}_start`,
            result: e.result ?? 'failed',
            explanation: e.explanation ?? '',
            usage: { input_tokens: u?.input_tokens ?? 0, output_tokens: u?.output_tokens ?? 0, cache_read_input_tokens: u?.cache_read_input_tokens ?? 0, cache_creation_input_tokens: u?.cache_creation_input_tokens ?? 0 },
          });
        }
        break;
      }
      case 'tool_call':
        if (customTools.has(e.name)) {
          customCalls.add(e.id);
          emit('agent.custom_tool_use', { name: e.name, input: e.input ?? {} }, e.id);
        } else {
          if (environmentTools.has(e.name)) environmentCalls.add(e.id);
          emit('agent.tool_use', { name: TOOLSET_NAMES[e.name] ?? e.name, input: e.input ?? {} }, e.id);
        }
        break;
      case 'tool_result':
        if (answered.has(e.id)) {
          const from = answered.get(e.id)!;
          answered.delete(e.id);
          emit('agent.thread_message_received', { from_session_thread_id: threadIdOf(from.runId), from_agent_name: from.agent, content: text(e.content) }, `${eventId(position)}_received`);
        }
        if (customCalls.has(e.id)) emit('user.custom_tool_result', { custom_tool_use_id: e.id, content: text(e.content), is_error: e.is_error });
        else if (environmentCalls.has(e.id)) emit('user.tool_result', { tool_use_id: e.id, content: text(e.content), is_error: e.is_error });
        else emit('agent.tool_result', { tool_use_id: e.id, content: text(e.content), is_error: e.is_error });
        break;
      case 'approval':
        // A client tool's result is recorded as an approval too; it shows as `user.custom_tool_result`.
        if (!customCalls.has(e.id) && !environmentCalls.has(e.id)) emit('user.tool_confirmation', { tool_use_id: e.id, result: e.decision, ...(e.message ? { deny_message: e.message } : {}) });
        break;
      case 'compacted':
        emit('agent.thread_context_compacted');
        break;
      case 'handover':
        emit('session.status_rescheduled');
        break;
      case 'retry':
        // Zero redoes the step by itself: the client waits.
        emit('session.error', { error: { type: errorType(e.reason), message: e.reason, retry_status: { type: 'retrying' } } });
        break;
      case 'error':
        // The run is over and the session idles; the next message starts a new turn (Zero never terminates a session).
        emit('session.error', { error: { type: errorType(e.code), message: e.message, retry_status: { type: 'exhausted' } } });
        break;
      case 'done': {
        const usage = e.usage;
        // A person stopped it (`user.interrupt`, Zero's cancel): shown where the run stopped.
        if (e.status === 'cancelled' && e.reason === STOP_REASONS.cancelled) emit('user.interrupt', {}, interruptEventId(e.run_id));
        emit(
          'span.model_request_end',
          {
            model_request_start_id: spanStart ?? `${eventId(position)}_span`,
            is_error: e.status === 'error',
            model_usage: {
              input_tokens: usage.input_tokens,
              output_tokens: usage.output_tokens,
              cache_read_input_tokens: usage.cache_read_input_tokens,
              cache_creation_input_tokens: usage.cache_creation_input_tokens,
            },
          },
          `${eventId(position)}_span_end`,
        );
        spanStart = undefined;
        if (e.status === 'awaiting_approval') threadsWaiting(e.pending ?? [], emit);
        runUsage.set(e.run_id, usage);
        emit('session.usage', { usage: sumManagedUsage(runUsage.values()) }, `${eventId(position)}_usage`);
        emit('session.status_idle', { stop_reason: stopReasonOf(e), stop_details: null });
        break;
      }
      default:
        // agent_switch, confirmation_required, client_tool_call: nothing of their own in the API
        // (a call that waits shows in the idle event's `requires_action`).
        break;
    }
    return out;
  };

  /** A delegation's start or return, on the caller's thread and on the child's. */
  function threadSwitch(e: Extract<StreamEvent, { type: 'agent_switch' }>, runId: string, parentRunId: string, emit: Emit, base: string) {
    const callerThread = isDelegatedRun(parentRunId) ? parentRunId : undefined;
    const child = threadIdOf(runId);
    const agent = e.reason === 'return' ? e.from ?? '' : e.to;
    const shown = { session_thread_id: child, agent_name: agent };
    if (e.reason === 'return') {
      const idle = { ...shown, stop_reason: threadStopReason(e.status), stop_details: null };
      if (callerThread === thread) {
        answered.set(e.tool_call_id!, { runId, agent });
        emit('session.thread_status_idle', idle);
      } else if (runId === thread) emit('session.thread_status_idle', idle);
      return;
    }
    const first = !created.has(runId);
    created.add(runId);
    const task = text(tasks.get(e.tool_call_id!) ?? '');
    if (callerThread === thread) {
      if (first) {
        emit('session.thread_created', { ...shown, workflow_run_id: null }, `${base}_created`);
        emit('agent.thread_message_sent', { to_session_thread_id: child, to_agent_name: agent, content: task }, `${base}_sent`);
      }
      emit('session.thread_status_running', shown);
    } else if (runId === thread) {
      emit('session.thread_status_running', shown);
      if (first) emit('agent.thread_message_received', { from_session_thread_id: parentThreadIdOf(runId), content: task }, `${base}_received`);
    }
  }

  /** The top-level run waits for people: each child thread it waits on idles, requiring the calls it asked about. */
  function threadsWaiting(pending: readonly string[], emit: Emit) {
    const byRun = new Map<string, { agent: string; ids: string[] }>();
    for (const id of pending) {
      const ask = asked.get(id);
      if (!ask) continue;
      const entry = byRun.get(ask.runId) ?? { agent: ask.agent, ids: [] };
      entry.ids.push(id);
      byRun.set(ask.runId, entry);
    }
    for (const [runId, { agent, ids }] of byRun) {
      const callerRun = callerRunOf(runId)!;
      const callerThread = isDelegatedRun(callerRun) ? callerRun : undefined;
      if (runId !== thread && callerThread !== thread && thread !== undefined) continue;
      emit('session.thread_status_idle', { session_thread_id: threadIdOf(runId), agent_name: agent, stop_reason: { type: 'requires_action', event_ids: ids }, stop_details: null }, `sevt_wait_${ids[0]}`);
    }
  }
}

type Emit = (type: string, fields?: Record<string, unknown>, id?: string) => void;

/** `delegate_agent`'s task, from its call's input. */
function taskOf(input: unknown): string {
  const task = (input as { task?: unknown } | undefined)?.task;
  return typeof task === 'string' ? task : '';
}

/** How a thread's run stopped, as `session.thread_status_idle` says it. */
function threadStopReason(status: string | undefined) {
  if (status === 'limit' || status === 'budget_reached') return { type: 'budget_reached' };
  if (status === 'error') return { type: 'retries_exhausted' };
  return { type: 'end_turn' };
}

/** `limit` (a run's steps, tokens or time) and `budget_reached` (spend) both stop the agent until a person raises or resends. */
function stopReasonOf(done: Extract<StreamEvent, { type: 'done' }>) {
  if (done.status === 'awaiting_approval') return { type: 'requires_action', event_ids: done.pending ?? [] };
  if (done.status === 'limit' || done.status === 'budget_reached') return { type: 'budget_reached' };
  if (done.status === 'error') return { type: 'retries_exhausted' };
  return { type: 'end_turn' };
}

/** The API's error type for Zero's error code, or a retry's reason (`overloaded (529)`, `rate limited (429)`). */
function errorType(code: string): string {
  if (/overload|529/i.test(code)) return 'model_overloaded_error';
  if (/rate.?limit|429/i.test(code)) return 'model_rate_limited_error';
  if (/^model|5\d\d|timeout|network/i.test(code)) return 'model_request_failed_error';
  return 'unknown_error';
}

/**
 * A user's message as the API shows it: the first message of an outcome is the `user.define_outcome`
 * echo; a revision the grader asked for is the outcome's own doing (its evaluation's end says why), not a
 * user's message; any other is `user.message`.
 */
function userMessage(e: Extract<StreamEvent, { type: 'message' }>, emit: (type: string, fields?: Record<string, unknown>) => void) {
  if (!e.outcome) return emit('user.message', { content: userMessageContent(e.text, e.attachments) });
  if (e.outcome.iteration > 0) return;
  emit('user.define_outcome', {
    outcome_id: e.outcome.outcome_id,
    description: e.outcome.description,
    rubric: { type: 'text', content: e.outcome.rubric },
    max_iterations: e.outcome.max_iterations,
  });
}
