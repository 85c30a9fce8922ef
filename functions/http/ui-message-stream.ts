import type { Context } from 'hono';
import type { UIMessageChunk } from 'ai';
import type { DoneStatus, PlanProgressPart, StreamEvent, UIDataTypes, UIMessageMetadata } from '@zero/agent/wire';
import { planProgressPartId, withPlanReport } from '@zero/agent/ui';
import { sseFrame } from './sse';
import type { DelegationParts } from './ui-delegations';

/**
 * The AI SDK's UI message stream (what `useChat` reads), encoded from Zero's
 * run events. Only the HTTP edge knows this protocol; core events stay Zero's.
 * Zero's data parts and message metadata are declared in the wire (`ui-parts.ts`).
 */
export type ZeroUIMessageChunk = UIMessageChunk<UIMessageMetadata, UIDataTypes>;

/** The headers the AI SDK's UI message stream protocol requires. */
export const UI_MESSAGE_STREAM_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  'x-vercel-ai-ui-message-stream': 'v1',
  'x-accel-buffering': 'no',
} as const;

const FINISH_REASON: Record<DoneStatus, 'stop' | 'length' | 'error' | 'other'> = {
  awaiting_approval: 'other',
  completed: 'stop',
  limit: 'length',
  error: 'error',
  cancelled: 'other',
  // A spent budget stops the answer short, as a length limit does.
  budget_reached: 'length',
};

/**
 * Maps one run's events to UI message chunks. A step (one model call and its
 * tools) becomes `start-step` … `finish-step`; a new step begins when the
 * model speaks again after tool results.
 */
export async function* toUIMessageChunks(events: AsyncIterable<StreamEvent>): AsyncGenerator<ZeroUIMessageChunk> {
  let started = false;
  let inStep = false;
  let afterTools = false;
  let openText: string | undefined;
  let textParts = 0;
  /** The reasoning part being streamed (the model's extended thinking), if any. */
  let openReasoning: string | undefined;
  /** Tool calls whose input is streaming: their `tool-input-start` is out. */
  const streamingInputs = new Set<string>();
  /** Denied calls: their part shows the denial, not the error result the model is given. */
  const denied = new Set<string>();
  /** Loaded with the first delegated event: most runs never delegate (and the cold-start budget is tight). */
  let delegations: DelegationParts | undefined;
  /** A run of a plan: its steps reported so far (one part, replaced at each report). */
  let plan: PlanProgressPart | undefined;

  function* closeReasoning(): Generator<ZeroUIMessageChunk> {
    if (openReasoning) yield { type: 'reasoning-end', id: openReasoning };
    openReasoning = undefined;
  }
  /** Ends the text (and reasoning) part being streamed: something else comes next. */
  function* closeText(): Generator<ZeroUIMessageChunk> {
    yield* closeReasoning();
    if (openText) yield { type: 'text-end', id: openText };
    openText = undefined;
  }
  function* stepFor(): Generator<ZeroUIMessageChunk> {
    if (inStep && !afterTools) return;
    if (inStep) {
      yield* closeText();
      yield { type: 'finish-step' };
    }
    yield { type: 'start-step' };
    inStep = true;
    afterTools = false;
  }

  for await (const event of events) {
    if (!started && event.type !== 'start') {
      // A stream always opens with `start`, even when the run failed before it began.
      yield { type: 'start', ...('run_id' in event && event.run_id ? { messageId: event.run_id } : {}) };
      started = true;
    }
    if ('parent_run_id' in event && event.parent_run_id) {
      // A delegate's own events show nested in its delegation, not in the caller's answer.
      yield* closeText();
      delegations ??= new (await import('./ui-delegations')).DelegationParts();
      yield* delegations.take(event);
      continue;
    }
    switch (event.type) {
      case 'start':
        if (started) break;
        started = true;
        yield { type: 'start', messageId: event.run_id, messageMetadata: { session_id: event.session_id, run_id: event.run_id, agent_id: event.agent_id, ...(event.model ? { model: event.model } : {}), ...(event.effort ? { effort: event.effort } : {}) } };
        break;
      case 'message':
        // The user's message is already on the client (or, for a watcher, in the session's history).
        break;
      case 'thinking':
        yield* stepFor();
        if (openText) {
          yield { type: 'text-end', id: openText };
          openText = undefined;
        }
        // A redacted block has no text to show: it is a part of its own that says so.
        if (event.redacted) yield* closeReasoning();
        if (!openReasoning) {
          openReasoning = `reasoning-${++textParts}`;
          yield { type: 'reasoning-start', id: openReasoning };
        }
        yield { type: 'reasoning-delta', id: openReasoning, delta: event.redacted ? '[redacted thinking]' : event.delta };
        if (event.redacted) yield* closeReasoning();
        break;
      case 'text':
        yield* stepFor();
        yield* closeReasoning();
        if (!openText) {
          openText = `text-${++textParts}`;
          yield { type: 'text-start', id: openText };
        }
        yield { type: 'text-delta', id: openText, delta: event.delta };
        break;
      case 'tool_call_delta':
        yield* stepFor();
        yield* closeText();
        if (!streamingInputs.has(event.id)) {
          streamingInputs.add(event.id);
          yield { type: 'tool-input-start', toolCallId: event.id, toolName: event.name };
        }
        yield { type: 'tool-input-delta', toolCallId: event.id, inputTextDelta: event.delta };
        break;
      case 'tool_call':
        yield* stepFor();
        yield* closeText();
        // An input written quickly was not streamed: it comes whole, as one delta.
        if (!streamingInputs.delete(event.id)) {
          yield { type: 'tool-input-start', toolCallId: event.id, toolName: event.name };
          yield { type: 'tool-input-delta', toolCallId: event.id, inputTextDelta: JSON.stringify(event.input ?? {}) };
        }
        yield { type: 'tool-input-available', toolCallId: event.id, toolName: event.name, input: event.input ?? {} };
        break;
      case 'tool_result':
        yield* closeText();
        afterTools = true;
        if (denied.delete(event.id)) break;
        yield event.is_error
          ? { type: 'tool-output-error', toolCallId: event.id, errorText: event.content }
          : { type: 'tool-output-available', toolCallId: event.id, output: event.content };
        break;
      case 'compacted':
        yield* closeText();
        yield { type: 'data-compacted', data: { tokens_before: event.tokens_before, tokens_after: event.tokens_after, turns_folded: event.turns_folded } };
        break;
      case 'tool_usage': {
        // Live statistics, not part of the answer: transient (useChat's `onData` gets them; the message keeps none), one id per tool.
        const { tool, calls, limit, remaining, total_calls, total_limit } = event;
        yield { type: 'data-tool-usage', id: `tool-usage-${tool}`, data: { tool, calls, limit, remaining, total_calls, total_limit }, transient: true };
        break;
      }
      case 'plan_progress': {
        // Kept in the message (the history rebuilds it the same): the checklist stays after a reload.
        yield* closeText();
        plan = withPlanReport(plan, event);
        yield { type: 'data-plan-progress', id: planProgressPartId(event.run_id ?? ''), data: plan };
        break;
      }
      case 'outcome_evaluation': {
        // Kept in the message, one part per run replaced at each phase: "grading…", then the grade and the grader's reasons.
        yield* closeText();
        const { outcome_id, iteration, max_iterations, phase, result, score, explanation } = event;
        yield { type: 'data-outcome', id: `outcome-${event.run_id ?? outcome_id}`, data: { outcome_id, iteration, ...(max_iterations ? { max_iterations } : {}), phase, ...(result ? { result } : {}), ...(score !== undefined ? { score } : {}), ...(explanation ? { explanation } : {}) } };
        break;
      }
      case 'retry':
        yield* closeText();
        yield { type: 'data-retry', data: { step: event.step, attempt: event.attempt, reason: event.reason, ...(event.provider ? { provider: event.provider } : {}) } };
        break;
      case 'agent_switch':
        yield* closeText();
        yield { type: 'data-agent-switch', data: { from: event.from, to: event.to } };
        break;
      case 'confirmation_required':
        yield* closeText();
        yield { type: 'data-confirmation-required', data: { id: event.id, name: event.name, input: event.input } };
        // The approval is named by its call: `addToolApprovalResponse({ id })` answers that call.
        yield { type: 'tool-approval-request', approvalId: event.id, toolCallId: event.id };
        break;
      case 'approval':
        if (event.decision === 'deny') {
          yield* closeText();
          denied.add(event.id);
          yield { type: 'tool-output-denied', toolCallId: event.id };
        }
        break;
      case 'error':
        yield* closeText();
        yield { type: 'error', errorText: `${event.message} (${event.code})` };
        break;
      case 'handover':
        // The run goes on in the background; a client re-attaches with the resume endpoint.
        yield* closeText();
        yield { type: 'data-handover', data: { session_id: event.session_id, run_id: event.run_id, reason: event.reason } };
        if (inStep) yield { type: 'finish-step' };
        yield { type: 'finish', finishReason: 'other' };
        return;
      case 'done':
        yield* closeText();
        yield {
          type: 'data-usage',
          data: { status: event.status, steps: event.steps, usage: event.usage, ...(event.reason ? { reason: event.reason } : {}) },
        };
        if (inStep) yield { type: 'finish-step' };
        yield { type: 'finish', finishReason: FINISH_REASON[event.status], messageMetadata: { status: event.status, usage: event.usage } };
        return;
    }
  }
}

export interface UIStreamOptions {
  /** Work that must finish before the response ends (keeps a Lambda invocation alive). */
  finished?: Promise<unknown>;
  heartbeatMs?: number;
}

/** Writes a run as the UI message stream: one JSON chunk per `data:` line, then `data: [DONE]`. */
export function streamUIMessages(c: Context, open: (signal: AbortSignal) => AsyncIterable<StreamEvent>, options: UIStreamOptions = {}) {
  for (const [name, value] of Object.entries(UI_MESSAGE_STREAM_HEADERS)) c.header(name, value);
  return sseFrame(
    c,
    async (stream, signal) => {
      for await (const chunk of toUIMessageChunks(open(signal))) {
        if (stream.aborted || stream.closed) break;
        await stream.write(`data: ${JSON.stringify(chunk)}\n\n`);
      }
      if (!stream.aborted && !stream.closed) await stream.write('data: [DONE]\n\n');
    },
    options,
  );
}
