import type { UIMessage } from 'ai';
import type { DelegateTool, Delegation, HistoryRecord, PlanProgressPart, QueuedMessage, UIDataTypes, UIMessageMetadata } from '../wire';
import { planProgressPartId, planReportOf, withPlanReport } from './plan-progress';
import { effortOf } from '../model/thinking';

/** A chat message as `useChat` holds it, with Zero's metadata and data parts. */
export type ZeroUIMessage = UIMessage<UIMessageMetadata, UIDataTypes>;
type Part = ZeroUIMessage['parts'][number];

/** The id of a run's user message; its answer's id is the run id (the UI stream's `start` says so). */
export const userMessageId = (runId: string) => `${runId}:user`;

/**
 * Turns a session's history (`GET /api/v2/sessions/:id` → `history`, and
 * `queued`) into the messages `useChat` would hold had it streamed every run,
 * so an app can open a chat with them: `useChat({ id, messages })`. Each
 * answer has the parts the UI message stream sends (`step-start`, `text`,
 * `tool-<name>`, `data-usage`) and its metadata. Runs still going end
 * without `data-usage`; a delegate's own steps become a `data-delegation`
 * part of the answer that delegated, as the stream sends them; a run of a plan
 * has its `data-plan-progress` part where the stream first sent it, as it last stood.
 * Only type imports: it runs in a browser (the console uses it) as well as on a server.
 */
export function historyToUIMessages(history: readonly HistoryRecord[], queued: readonly Pick<QueuedMessage, 'run_id' | 'text' | 'author'>[] = []): ZeroUIMessage[] {
  const messages: ZeroUIMessage[] = [];
  const answers = new Map<string, ZeroUIMessage>();
  /** The agent each run was addressed to: an answer that failed before the model spoke still names it. */
  const agentOf = new Map<string, string>();
  /** The model and effort each run's message was answered on. */
  const askedOf = new Map<string, Pick<UIMessageMetadata, 'model' | 'effort'>>();
  const answerFor = (runId: string) => {
    let answer = answers.get(runId);
    if (!answer) {
      const agentId = agentOf.get(runId);
      answer = { id: runId, role: 'assistant', parts: [], metadata: { run_id: runId, ...(agentId ? { agent_id: agentId } : {}), ...askedOf.get(runId) } };
      answers.set(runId, answer);
      messages.push(answer);
    }
    return answer;
  };
  /** Each run of a plan: its steps, its `plan_progress` calls' inputs by call id, and its part once a step was reported. */
  const plans = new Map<string, { steps: readonly string[]; calls: Map<string, unknown>; part?: { type: 'data-plan-progress'; id: string; data: PlanProgressPart } }>();
  /** A `plan_progress` call's successful result: the plan's part is added (where the stream first sent it) or replaced. */
  const reportPlan = (runId: string, id: string, isError?: boolean) => {
    const plan = plans.get(runId);
    if (!plan || isError || !plan.calls.has(id)) return;
    const report = planReportOf(plan.calls.get(id), plan.steps);
    // A call reports once (its result may be logged alone and again with its step's).
    plan.calls.delete(id);
    if (!report) return;
    if (plan.part) plan.part.data = withPlanReport(plan.part.data, report);
    else {
      plan.part = { type: 'data-plan-progress', id: planProgressPartId(runId), data: withPlanReport(undefined, report) };
      answerFor(runId).parts.push(plan.part);
    }
  };
  const settle = (answer: ZeroUIMessage, id: string, content: string, isError?: boolean) => {
    const index = answer.parts.findIndex((p) => 'toolCallId' in p && p.toolCallId === id);
    const part = answer.parts[index];
    // A denied call's error result is for the model: its part shows the denial.
    if (!part || !('toolCallId' in part) || ('state' in part && part.state === 'output-denied')) return;
    const { toolCallId, type } = part;
    const input = 'input' in part ? part.input : {};
    answer.parts[index] = (
      isError ? { type, toolCallId, state: 'output-error', input, errorText: content } : { type, toolCallId, state: 'output-available', input, output: content }
    ) as Part;
  };

  /** Marks a call's part as the approval flow left it (the approval id is the call's id, as the stream sends it). */
  const approve = (answer: ZeroUIMessage, id: string, state: string, approval: Record<string, unknown>) => {
    const index = answer.parts.findIndex((p) => 'toolCallId' in p && p.toolCallId === id);
    const part = answer.parts[index];
    if (!part || !('toolCallId' in part)) return;
    answer.parts[index] = { type: part.type, toolCallId: id, state, input: 'input' in part ? part.input : {}, approval: { id, ...approval } } as Part;
  };

  /** Each child run's part, and the answer it shows in (a delegate's delegate shows in the same answer). */
  const delegations = new Map<string, { data: Delegation; answerRun: string }>();
  const delegationFor = (record: HistoryRecord & { parent_run_id: string }) => {
    let shown = delegations.get(record.run_id);
    if (!shown) {
      const parent = record.parent_run_id;
      const caller = delegations.get(parent);
      const answerRun = caller?.answerRun ?? parent;
      const from = caller?.data.to ?? answerFor(parent).metadata?.agent_id ?? agentOf.get(parent) ?? '';
      // A child run's id is the caller's run id and its `delegate_agent` call's id.
      const toolCallId = record.run_id.startsWith(`${parent}:`) ? record.run_id.slice(parent.length + 1) : undefined;
      const to = 'agent_id' in record && typeof record.agent_id === 'string' ? record.agent_id : '';
      const data: Delegation = { run_id: record.run_id, parent_run_id: parent, from, to, ...(toolCallId ? { tool_call_id: toolCallId } : {}), items: [] };
      shown = { data, answerRun };
      delegations.set(record.run_id, shown);
      answerFor(answerRun).parts.push({ type: 'data-delegation', id: record.run_id, data });
    }
    return shown.data;
  };
  const settleDelegated = (delegation: Delegation, id: string, content: string, isError?: boolean) => {
    const tool = delegatedCall(delegation, id);
    if (tool) Object.assign(tool, { state: isError ? 'failed' : 'done', output: content });
  };

  for (const record of history) {
    if (record.parent_run_id) {
      const delegation = delegationFor(record as HistoryRecord & { parent_run_id: string });
      if (record.kind === 'assistant') {
        for (const block of record.content as { type: string; [key: string]: unknown }[]) {
          const last = delegation.items.at(-1);
          if (block.type === 'text' && typeof block.text === 'string' && block.text) {
            if (last?.type === 'text') last.text += block.text;
            else delegation.items.push({ type: 'text', text: block.text });
          } else if (block.type === 'tool_use' || block.type === 'server_tool_use') {
            delegation.items.push({ type: 'tool', id: String(block.id), name: String(block.name), input: block.input ?? {}, state: 'running' });
          }
        }
      } else if (record.kind === 'tool_results') for (const result of record.results) settleDelegated(delegation, result.tool_use_id, result.content, result.is_error);
      else if (record.kind === 'tool_result') settleDelegated(delegation, record.tool_use_id, record.content, record.is_error);
      else if (record.kind === 'approval_request' && !record.client_tool) {
        const tool = delegatedCall(delegation, record.tool_use_id);
        if (tool) tool.state = 'waiting';
      } else if (record.kind === 'approval' && record.result) settleDelegated(delegation, record.tool_use_id, record.result.content, record.result.is_error);
      else if (record.kind === 'run_end') Object.assign(delegation, { status: record.status, usage: record.usage });
      continue;
    }
    switch (record.kind) {
      case 'user_message':
        agentOf.set(record.run_id, record.agent_id);
        askedOf.set(record.run_id, { model: record.model, ...effortRecorded(record) });
        if (record.plan_steps?.length) plans.set(record.run_id, { steps: record.plan_steps, calls: new Map() });
        messages.push({
          id: userMessageId(record.run_id),
          role: 'user',
          parts: [{ type: 'text', text: record.text }],
          ...(record.author ? { metadata: { author: record.author } } : {}),
        });
        break;
      case 'assistant': {
        const answer = answerFor(record.run_id);
        answer.metadata = { ...answer.metadata, agent_id: record.agent_id };
        answer.parts.push({ type: 'step-start' });
        for (const block of record.content as { type: string; [key: string]: unknown }[]) {
          if (block.type === 'text' && typeof block.text === 'string' && block.text) answer.parts.push({ type: 'text', text: block.text, state: 'done' });
          else if (block.type === 'thinking' && typeof block.thinking === 'string') answer.parts.push({ type: 'reasoning', text: block.thinking, state: 'done' });
          else if (block.type === 'redacted_thinking') answer.parts.push({ type: 'reasoning', text: '[redacted thinking]', state: 'done' });
          else if (block.type === 'tool_use' || block.type === 'server_tool_use') {
            if (block.name === 'plan_progress') plans.get(record.run_id)?.calls.set(String(block.id), block.input);
            answer.parts.push({ type: `tool-${String(block.name)}`, toolCallId: String(block.id), state: 'input-available', input: block.input } as Part);
          } else if (block.type === 'web_search_tool_result') {
            const result = describeSearchResult(block.content);
            settle(answer, String(block.tool_use_id), result.content, result.is_error);
          }
        }
        break;
      }
      case 'tool_results':
        for (const result of record.results) {
          settle(answerFor(record.run_id), result.tool_use_id, result.content, result.is_error);
          reportPlan(record.run_id, result.tool_use_id, result.is_error);
        }
        break;
      case 'tool_result':
        settle(answerFor(record.run_id), record.tool_use_id, record.content, record.is_error);
        reportPlan(record.run_id, record.tool_use_id, record.is_error);
        break;
      case 'approval_request':
        // A client tool's call waits for the client's output: its part stays `input-available`, as `onToolCall` left it.
        if (!record.client_tool) approve(answerFor(record.run_id), record.tool_use_id, 'approval-requested', {});
        break;
      case 'approval':
        if (record.result) settle(answerFor(record.run_id), record.tool_use_id, record.result.content, record.result.is_error);
        else if (record.decision === 'deny') approve(answerFor(record.run_id), record.tool_use_id, 'output-denied', { approved: false, ...(record.message ? { reason: record.message } : {}) });
        else approve(answerFor(record.run_id), record.tool_use_id, 'approval-responded', { approved: true });
        break;
      case 'compaction':
        answerFor(record.run_id).parts.push({
          type: 'data-compacted',
          data: { tokens_before: record.tokens_before, tokens_after: record.tokens_after, turns_folded: record.turns_folded },
        });
        break;
      case 'run_wait': {
        const answer = answerFor(record.run_id);
        answer.metadata = { ...answer.metadata, status: 'awaiting_approval', usage: record.usage };
        break;
      }
      case 'run_end': {
        const answer = answerFor(record.run_id);
        answer.parts.push({
          type: 'data-usage',
          data: { status: record.status, steps: record.steps, usage: record.usage, ...(record.reason ? { reason: record.reason } : {}) },
        });
        answer.metadata = { ...answer.metadata, status: record.status, usage: record.usage, ...(record.error ? { error: record.error } : {}) };
        break;
      }
    }
  }
  for (const waiting of queued) {
    messages.push({
      id: userMessageId(waiting.run_id),
      role: 'user',
      parts: [{ type: 'text', text: waiting.text }],
      metadata: { queued: true, ...(waiting.author ? { author: waiting.author } : {}) },
    });
  }
  return messages;
}

/** The effort a message's run thinks at: as recorded, else (a record written before) the message's own budget's, if it set one. */
function effortRecorded(record: Extract<HistoryRecord, { kind: 'user_message' }>): Pick<UIMessageMetadata, 'effort'> {
  if (record.effort) return { effort: record.effort };
  if (record.thinking_budget === undefined) return {};
  return { effort: record.thinking_budget > 0 ? effortOf(record.thinking_budget) : 'off' };
}

/** A delegate's call in its delegation part. */
const delegatedCall = (delegation: Delegation, id: string) => delegation.items.find((item): item is DelegateTool => item.type === 'tool' && item.id === id);

/** A web search result block as the stream's `tool_result` shows it: titles and URLs. */
function describeSearchResult(content: unknown): { content: string; is_error: boolean } {
  if (!Array.isArray(content)) return { content: `web search failed: ${(content as { error_code?: string } | undefined)?.error_code ?? 'unknown'}`, is_error: true };
  if (content.length === 0) return { content: 'no results', is_error: false };
  const lines = content.map((r: { title?: string; url?: string; page_age?: string | null }) => `- ${r.title} (${r.url})${r.page_age ? `, ${r.page_age}` : ''}`);
  return { content: lines.join('\n'), is_error: false };
}
