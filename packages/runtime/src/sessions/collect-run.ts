import type { StreamEvent } from '@zero/agent/wire';
import type { ChatRun } from './start-chat';

/**
 * The non-streaming answer: the run's text, tool calls and outcome in one JSON
 * body. Delegated work appears as the `delegate_agent` call and its result
 * (the delegate's answer), plus one entry per child run in `delegations`.
 */
export async function collectRun(run: ChatRun) {
  // Text of a step that is retried is dropped; a step's text is final once its tools run.
  // Steps' texts are kept apart by a blank line, as a reader of the answer would expect.
  const texts: string[] = [];
  let stepText = '';
  const endStep = () => {
    if (stepText.trim()) texts.push(stepText.trim());
    stepText = '';
  };
  const toolCalls: { id: string; name: string; input: unknown; result?: string; is_error?: boolean }[] = [];
  const delegations: { run_id: string; agent_id: string; parent_run_id?: string; tool_call_id?: string; status?: string; usage?: unknown }[] = [];
  let error: Extract<StreamEvent, { type: 'error' }> | undefined;
  let done: Extract<StreamEvent, { type: 'done' }> | undefined;
  let graded: Extract<StreamEvent, { type: 'outcome_evaluation' }> | undefined;
  for await (const event of run.events()) {
    if (event.type === 'agent_switch' && event.reason === 'return' && event.run_id) {
      delegations.push({ run_id: event.run_id, agent_id: event.agent_id ?? event.from ?? '', parent_run_id: event.parent_run_id, tool_call_id: event.tool_call_id, status: event.status, usage: event.usage });
    }
    // Child runs' own events are in the stream (stream: true) and the session's history.
    if ('run_id' in event && event.run_id !== run.runId) continue;
    if (event.type === 'text') stepText += event.delta;
    else if (event.type === 'retry') {
      // The failed attempt's calls were never run: only calls with a result are from earlier steps.
      stepText = '';
      toolCalls.splice(0, toolCalls.length, ...toolCalls.filter((t) => t.result !== undefined));
    }
    else if (event.type === 'tool_call') toolCalls.push({ id: event.id, name: event.name, input: event.input });
    else if (event.type === 'tool_result') {
      endStep();
      const call = toolCalls.find((t) => t.id === event.id);
      if (call) Object.assign(call, { result: event.content, is_error: event.is_error });
    } else if (event.type === 'error') error = event;
    else if (event.type === 'done') done = event;
    else if (event.type === 'outcome_evaluation' && event.phase === 'end') graded = event;
  }
  endStep();
  return {
    session_id: run.session.session_id,
    run_id: run.runId,
    status: done?.status ?? 'error',
    text: texts.join('\n\n'),
    tool_calls: toolCalls,
    delegations,
    usage: done?.usage,
    // The grade of the message's outcome (a revision it asks for is the session's next run).
    ...(graded ? { outcome: { outcome_id: graded.outcome_id, iteration: graded.iteration, result: graded.result, score: graded.score, explanation: graded.explanation } } : {}),
    ...(error ? { error: { code: error.code, message: error.message } } : {}),
  };
}
