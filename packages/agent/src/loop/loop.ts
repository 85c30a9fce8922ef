import type { AgentCatalog } from '../definitions/catalog';
import type { AgentDefinition } from '../definitions/definition';
import { defineErrorClass } from '../errors';
import type { ClientTool, StreamEvent, SystemPromptOverride, Usage, VoiceMode } from '../wire';
import { costOf, maxCostOf, stepCost } from '../model/pricing';
import { addUsage, zeroUsage } from '../events/usage';
import { ModelCallAborted, ModelError, type ContentBlockParam, type MessageParam, type ModelProvider, type ModelUsage } from '../model/provider';
import type { MemoryIndex } from './memory-index';
import type { NewLogRecord } from '../records/log-record';
import type { ToolRegistry, ToolResult } from '../tools/registry';
import type { AgentToolSource, Delegator, ToolContext } from '../tools/tool';
import { describeFailure, endRun, type RunEnding, type RunOutcome } from './end-run';
import { contextWindowOf } from '../model/context-windows';
import type { ProvidersConfig } from '../model/providers-config';
import { thinkingFor } from '../model/thinking';
import { ContextGauge, sizeOf } from './compaction';
import { toolResultContent, withConversationBreakpoint } from './history';
import type { BudgetHold, RunBudget } from './budget';
import type { RunLimits } from './limits';
import { ToolInputDeltas } from './tool-input-deltas';
import { ToolCallCounter } from './tool-limits';
import { PLAN_PROGRESS_TOOL, createPlanProgressTool, progressOf } from '../plan/progress';
import { buildSystemPrompt, type PromptSkills } from './prompt';
import { SKILL_TOOL } from '../definitions/claude-code-tools';
import { redact } from '../log/redact';
import { stopReason } from './stop-reasons';
import { inSpan, startSpan, tracingOn, type TraceSpan } from '../telemetry/traces';

/** What a run needs from the outside world. */
export interface RunDeps<S extends object = any> {
  provider: ModelProvider;
  /** The tools, whose calls' contexts carry the services `S`. */
  tools: ToolRegistry<S>;
  /** The agents a run may delegate to. */
  catalog: AgentCatalog;
  limits: RunLimits;
  /** Values that must never appear in events or records (API keys). */
  secrets?: readonly string[];
  /** Tools found when a run starts: the agent's MCP servers' (see `mcp/`). */
  mcp?: AgentToolSource;
  /** What the run may spend, checked before each model call (see `budgets/`); a delegated run shares its caller's. */
  budget?: RunBudget;
  /** The deployment's model providers, whose endpoints say their models' context windows (see model/context-windows.ts). */
  providers?: Pick<ProvidersConfig, 'default' | 'endpoints'>;
}

/**
 * One run, as the loop takes it, with one event sink beside it (as pi-mono's agent-loop takes a context
 * and an emit): what the deployment gives every run (`deps`), which run this is (`run`), the ports
 * through which it persists and asks its session (`ports`, implemented by the runtime), and its stop signal.
 */
export interface LoopContext<S extends object = any> {
  deps: RunDeps<S>;
  run: RunSpec;
  ports: RunPorts<S>;
  /** Aborted to stop the run at its next safe point; its reason says why. */
  signal?: AbortSignal;
}

/** Which run: its session, id, agent and model, the conversation it answers, and what its message adds to the agent. */
export interface RunSpec {
  sessionId: string;
  runId: string;
  agent: AgentDefinition;
  model: string;
  voice: VoiceMode;
  projectId?: string;
  /** The conversation so far, ending with the message this run answers. */
  messages: MessageParam[];
  /** Carrying on an unfinished run: the steps and usage it had, and its last step's calls without results. */
  resume?: { steps: number; usage: Usage; pending: ToolCall[] };
  /**
   * Epoch ms by which this process must be done (the Lambda's remaining time,
   * or a configured budget). A step is not started when less than
   * `handoverReserveMs` is left: the run hands over instead.
   */
  deadline?: number;
  handoverReserveMs?: number;
  options?: RunOptions;
}

/** What the message and the session add to the agent's definition for this run. */
export interface RunOptions {
  /** The message's own extended-thinking budget (0: off), over the agent's and the deployment's. */
  thinkingBudget?: number;
  /** The message's own cap on the tool loop's iterations (steps), over the agent's and the deployment's: the strictest wins. */
  maxToolIterations?: number;
  /** Tools the client runs, offered to the model with the agent's; a call of one is answered by `RunPorts.callClientTool`. */
  clientTools?: readonly ClientTool[];
  /** The steps of the plan the run's message was made from: the run gets the plan_progress tool (see `plan/progress.ts`). */
  planSteps?: readonly string[];
  /** The agent's memory index for the system prompt (see `memory-index.ts`); absent: the agent keeps none. */
  memory?: MemoryIndex;
  /** The project's framework hints for an API tester's prompt (the runtime's `tools/api-testing/framework-hints.ts`); absent for other agents. */
  frameworkHints?: string;
  /** The agent's skills for this session (the runtime's `skills/session-skills.ts`): listed in the prompt, loaded with read_skill; absent: none. */
  skills?: PromptSkills;
  /** The message's change to the agent's system prompt (an eval variant's): its definition replaced, text appended. */
  systemPrompt?: SystemPromptOverride;
}

/**
 * The ports a run persists and asks its session through; the runtime implements them over its store
 * (the session log fenced by the run's lease, the session's meta item, approvals, client tools,
 * compaction), so the loop names no store. Only `append` and `services` are required.
 */
export interface RunPorts<S extends object = any> {
  /** Makes a record durable in the session log (fenced by the run's lease); rejects if it cannot. */
  append: (record: NewLogRecord) => Promise<void>;
  /**
   * Makes records durable together, in one round trip (one log item), in order; rejects if it cannot. Given,
   * a step of read-only calls writes its `assistant` record with its first result, and the run's answer is
   * written with its `run_end`; absent, each record is written alone.
   */
  appendTogether?: (records: readonly NewLogRecord[]) => Promise<void>;
  /** Handed to every tool call as it is: the loop never looks inside. */
  services: S;
  /**
   * Called right before each tool call runs; rejects when this run may no
   * longer act for the session (its lease was taken over: `LeaseLostError`), so a call's side
   * effects never happen twice: the instance that took over runs it.
   */
  confirmLease?: () => Promise<void>;
  /** See `RunEnding.settle`: the session's meta item learns whether the run waits before its last event. */
  settle?: RunEnding['settle'];
  /** See `RunEnding.announce`: what reports the run's ending is written before it. */
  announce?: RunEnding['announce'];
  /** Lets this run's tools hand tasks to other agents (`delegate_agent`); see the runtime's `run/delegate.ts`. */
  delegator?: Delegator;
  /** Collects a person's decision on a call the policy marks `ask` (see `ToolContext.requestApproval`); absent: `ask` refuses. */
  requestApproval?: ToolContext['requestApproval'];
  /** The session's permission overrides for every call's policy (see `ToolContext.permissionOverrides`). */
  permissionOverrides?: ToolContext['permissionOverrides'];
  /**
   * Answers a client tool call: its recorded result, or `waiting` (recorded and reported) until a client sends one.
   * `permit`, given for a tool that `replaces` one of Zero's, is asked first, before the call is handed to a client
   * (once: a call already handed over is not asked again); a result from it (refused, or waiting for a person) answers the call.
   */
  callClientTool?: (call: ToolCall, permit?: () => Promise<ToolResult | undefined>) => Promise<ToolResult>;
  /**
   * Compacts the conversation (see compaction.ts): folds the oldest turns into a summary, records it,
   * and returns the conversation as the model reads it now, with the summarising calls' usage. Undefined:
   * nothing can be folded. Absent: the run never compacts (a delegated run's task is one turn).
   */
  compact?: (need: {
    model: string;
    tokensBefore: number;
    window: number;
    /** The input tokens a conversation would take, as the run's gauge counts them. */
    estimate: (messages: MessageParam[]) => number;
  }) => Promise<{ messages: MessageParam[]; usage: Usage; turns: number; tokensAfter: number } | undefined>;
  /**
   * Called with the run's outcome before its ending is recorded; the usage it resolves with (a model call
   * of Zero's own about the run: a new session's title) is added to the run's, so `run_end` and `done`
   * count it. Must not throw.
   */
  conclude?: (outcome: RunOutcome, unwritten?: NewLogRecord) => Promise<Usage | undefined>;
}

/** A call of a tool, as the model made it. */
export type ToolCall = { id: string; name: string; input: unknown };

export type { RunOutcome };

/** Events the loop emits; the caller adds ids and fans them out. */
export type Emit = (event: StreamEvent) => void;


/**
 * Runs the tool-use loop until `end_turn`, a limit, cancellation or an error.
 * Must not throw: every ending is an outcome, a `run_end` record and a `done` event. A step
 * whose calls wait for a person ends the invocation with a `run_wait` record and a `done`
 * of status `awaiting_approval`: the run is not over, and a decision carries it on.
 * After each step its records are durable before the next model call.
 */
export async function runLoop<S extends object>(context: LoopContext<S>, emit: Emit): Promise<RunOutcome> {
  const c = context;
  // A span per run (when traces are on), the parent of its steps; a delegate's run nests under its tool call.
  // A run started without a request (a worker's, a resumed one) starts tracing itself.
  await tracingOn();
  const attributes = { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': c.run.agent.id, 'gen_ai.request.model': c.run.model, 'zero.session.id': c.run.sessionId, 'zero.run.id': c.run.runId };
  return inSpan(`invoke_agent ${c.run.agent.id}`, attributes, async (span) => {
    const outcome = await runSteps(c, emit);
    span.set({ 'zero.run.status': outcome.status, 'zero.run.steps': outcome.steps, 'gen_ai.usage.input_tokens': outcome.usage.input_tokens, 'gen_ai.usage.output_tokens': outcome.usage.output_tokens });
    return outcome;
  });
}

async function runSteps<S extends object>(context: LoopContext<S>, emit: Emit): Promise<RunOutcome> {
  let c = await withFoundTools(context);
  const { limits } = c.deps;
  const { runId } = c.run;
  // A client tool that stands in for one of the agent's tools takes its place: the agent's is neither offered nor run.
  const replaced = new Set((c.run.options?.clientTools ?? []).flatMap((tool) => (tool.replaces ? [tool.replaces] : [])));
  // read_skill is the run's exactly when it has skills to load.
  const skillTool = c.run.options?.skills?.skills.length ? [SKILL_TOOL] : [];
  const tools = [...c.run.agent.tools.filter((name) => !replaced.has(name) && name !== SKILL_TOOL), ...skillTool];
  const agent = tools.join('\0') === c.run.agent.tools.join('\0') ? c.run.agent : { ...c.run.agent, tools };
  if (agent !== c.run.agent) c = { ...c, run: { ...c.run, agent } };
  const started = Date.now();
  const usage = c.run.resume ? { ...c.run.resume.usage } : zeroUsage();
  const messages = [...c.run.messages];
  const clientTools = c.run.options?.clientTools ?? [];
  const toolDefinitions = [...c.deps.tools.definitions(agent.tools), ...clientTools.map(({ name, description, input_schema }) => ({ name, description, input_schema }))];
  const system = buildSystemPrompt({
    agent,
    voice: c.run.voice,
    projectId: c.run.projectId,
    memory: c.run.options?.memory,
    skills: c.run.options?.skills,
    frameworkHints: c.run.options?.frameworkHints,
    override: c.run.options?.systemPrompt,
    tools: [...c.deps.tools.describe(agent.tools), ...clientTools.map(({ name, description }) => ({ name, description }))],
  });
  const gauge = new ContextGauge(sizeOf(system) + sizeOf(toolDefinitions));
  const window = contextWindowOf(c.run.model, { override: limits.contextWindowTokens, providers: c.deps.providers });
  const toolCalls = new ToolCallCounter({ ...limits, agentToolLimits: agent.tool_limits });
  // The tool loop's iterations (steps): the deployment's cap, tightened by the agent's and the request's `max_tool_iterations`.
  const maxSteps = Math.min(limits.maxSteps, agent.max_tool_iterations ?? Infinity, c.run.options?.maxToolIterations ?? Infinity);
  let steps = c.run.resume?.steps ?? 0;
  const append = c.ports.append;
  /** The step in flight's span: the parent of its model call and tool calls. */
  let stepSpan: TraceSpan | undefined;
  const endStep = (error?: unknown) => {
    stepSpan?.end(error);
    stepSpan = undefined;
  };
  const stopped = (): RunOutcome | undefined =>
    c.signal?.aborted ? { status: 'cancelled', steps, usage, reason: stopReason(c.signal) } : undefined;

  /**
   * Runs one step's tool calls concurrently. Each result is made durable the
   * moment its call completes, keyed by (run id, tool call id), so a crash
   * loses no finished call and a resumed run executes only the unfinished ones.
   * `step` is the step's `assistant` record: no result is recorded before it
   * (read-only calls may run before it is durable; see `stepRecord`).
   */
  const runTools = async (toolUses: ToolCall[], step = stepRecord(c.ports, undefined, true)) => {
    const parent = stepSpan;
    const results = await Promise.all(
      toolUses.map(async (call) => {
        const reserve = () => {
          const { refused, usage } = toolCalls.reserve(call.name);
          emit({ type: 'tool_usage', ...usage, agent_id: agent.id, run_id: runId });
          return refused;
        };
        // A span per call (when traces are on), under its step; a delegate's run started by the call nests under it.
        const traced = { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': call.name, 'gen_ai.tool.call.id': call.id };
        const result = await inSpan(
          `execute_tool ${call.name}`,
          traced,
          async (span) => {
            const result = await executeCall(c, call, reserve, step.durable);
            if (result.is_error) span.set({ 'error.type': 'tool_error' });
            return result;
          },
          { parent },
        );
        // A delegated run's model usage counts toward this run's usage and token limit.
        if (result.usage) addUsage(usage, result.usage);
        // Waiting for a person: no result yet; the run carries the call on once it is decided (or, for a
        // delegated run's calls it waits on, once they are: the call is then run again and the delegate resumes).
        if (result.waiting) return (await step.durable(), { waiting: result.waitsOn ?? [call.id] });
        await step.appendAfter({
          kind: 'tool_result',
          run_id: runId,
          step: steps,
          tool_use_id: call.id,
          name: call.name,
          content: result.content,
          ...(result.is_error ? { is_error: true } : {}),
          ...(result.images?.length ? { images: result.images } : {}),
        });
        emit({
          type: 'tool_result',
          id: call.id,
          name: call.name,
          content: result.content,
          is_error: result.is_error,
          ...(result.truncated ? { truncated: true } : {}),
          agent_id: agent.id,
          run_id: runId,
        });
        const progress = call.name === PLAN_PROGRESS_TOOL && !result.is_error && c.run.options?.planSteps ? progressOf(call.input, c.run.options?.planSteps) : undefined;
        if (progress) emit({ type: 'plan_progress', ...progress, agent_id: agent.id, run_id: runId });
        return { type: 'tool_result' as const, tool_use_id: call.id, content: toolResultContent(result.content, result.images), ...(result.is_error ? { is_error: true } : {}) };
      }),
    );
    const waiting = results.flatMap((r) => ('waiting' in r && r.waiting ? r.waiting : []));
    if (waiting.length) return waiting;
    // Results answer the calls in the order the model made them.
    const byId = new Map(results.flatMap((r) => ('waiting' in r ? [] : [[r.tool_use_id, r] as const])));
    const last = messages.at(-1);
    const answer = toolUses.map((c) => byId.get(c.id)!);
    if (last?.role === 'user' && Array.isArray(last.content)) last.content.push(...answer);
    else messages.push({ role: 'user', content: answer });
    return [];
  };
  /**
   * Before a model call that would fill the window past the threshold, the conversation is compacted (never
   * after a failure). A compaction that frees too little, or a conversation over the window that cannot be
   * compacted, ends the run with `context_exhausted` rather than a call the API would refuse, or a loop.
   */
  const compactIfFull = async (): Promise<RunOutcome | undefined> => {
    const before = gauge.estimate(messages);
    if (before < (window * (agent.compaction?.at_percent ?? limits.compactAtPercent)) / 100) return undefined;
    const exhausted = (why: string): RunOutcome => {
      const message = `the conversation needs about ${before} tokens of the model's ${window}: ${why}`;
      return { status: 'error', steps, usage, reason: message, error: { code: 'context_exhausted', message } };
    };
    const compacted = c.ports.compact ? await c.ports.compact({ model: c.run.model, tokensBefore: before, window, estimate: (m) => gauge.estimate(m) }) : undefined;
    if (!compacted) return before >= window ? exhausted('nothing older than the turns kept can be compacted') : undefined;
    addUsage(usage, compacted.usage);
    c.deps.budget?.spend(compacted.usage);
    messages.splice(0, messages.length, ...compacted.messages);
    const after = compacted.tokensAfter;
    emit({ type: 'compacted', tokens_before: before, tokens_after: after, turns_folded: compacted.turns, agent_id: agent.id, run_id: runId });
    if (before - after < (before * limits.compactMinFreedPercent) / 100 || after >= window) {
      return exhausted(`compacting ${compacted.turns} turns freed only ${before - after} tokens`);
    }
    return undefined;
  };
  /** The step's calls are decided or waiting, and some wait: the run waits (it ends its invocation; a decision resumes it). */
  const awaiting = (pending: string[]): RunOutcome => ({ status: 'awaiting_approval', steps, usage, pending });

  let outcome: RunOutcome;
  /** The run's answer, when it completes: written with its `run_end` (see `RunEnding.unwritten`). */
  let unwritten: NewLogRecord | undefined;
  /** The reservation of the model call in flight, until its usage settles it. */
  let hold: BudgetHold | undefined;
  try {
    outcome = await (async (): Promise<RunOutcome> => {
      if (c.run.resume?.pending.length) {
        const waiting = await runTools(c.run.resume.pending);
        if (waiting.length) return awaiting(waiting);
      }
      for (;;) {
        endStep();
        const stop = stopped();
        if (stop) return stop;
        if (c.run.deadline && Date.now() + (c.run.handoverReserveMs ?? 60_000) >= c.run.deadline) {
          return { status: 'handover', steps, usage, reason: 'the run neared the time limit of this process and continues in the background' };
        }
        if (steps >= maxSteps) {
          const reason = maxSteps < limits.maxSteps ? `tool iteration limit reached (max_tool_iterations ${maxSteps})` : `step limit reached (${limits.maxSteps} steps)`;
          return { status: 'limit', steps, usage, reason };
        }
        if (Date.now() - started >= limits.wallTimeMs) return { status: 'limit', steps, usage, reason: `time limit reached (${limits.wallTimeMs} ms)` };
        const tokens = usage.input_tokens + usage.output_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens;
        if (tokens >= limits.maxTokens) return { status: 'limit', steps, usage, reason: `token limit reached (${limits.maxTokens} tokens)` };
        const spent = await c.deps.budget?.check();
        if (spent) return { status: 'budget_reached', steps, usage, reason: spent.reason, budget: spent.budget };
        const exhausted = await compactIfFull();
        if (exhausted) return exhausted;
        // The call's most is held on the budgets until its usage settles it: calls in flight never start past a limit.
        const reserved = await c.deps.budget?.reserve(maxCostOf(c.run.model, gauge.estimate(messages), maxTokensOf(c)), c.signal);
        if (reserved && 'stop' in reserved) return { status: 'budget_reached', steps, usage, reason: reserved.stop.reason, budget: reserved.stop.budget };
        hold = reserved?.hold;
        // Stopped while it waited for calls in flight: no call is made.
        const stopWhileHeld = stopped();
        if (stopWhileHeld) {
          if (hold) c.deps.budget?.spend(zeroUsage(), hold);
          hold = undefined;
          return stopWhileHeld;
        }
        steps += 1;
        stepSpan = startSpan(`step ${steps}`, { 'zero.run.id': runId, 'zero.step': steps });

        const modelCall = { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': c.run.model };
        const response = await inSpan(`chat ${c.run.model}`, modelCall, async (span) => {
          const response = await callModel(c, system, toolDefinitions, messages, steps, emit, stepBound(limits, c.run, started));
          span.set({
            'gen_ai.response.model': response.fellBackTo ?? c.run.model,
            'gen_ai.response.finish_reasons': response.stopReason ? [response.stopReason] : [],
            'gen_ai.usage.input_tokens': response.usage.input_tokens,
            'gen_ai.usage.output_tokens': response.usage.output_tokens,
          });
          return response;
        }, { parent: stepSpan, kind: 'client' });
        gauge.observe(messages, response.usage);
        const stepUsage = { ...response.usage, ...stepCost(c.run.model, response) };
        addUsage(usage, stepUsage);
        c.deps.budget?.spend(stepUsage, hold);
        hold = undefined;
        const assistant: MessageParam = { role: 'assistant', content: response.content };
        const record: NewLogRecord = { kind: 'assistant', run_id: runId, step: steps, agent_id: agent.id, content: response.content as never, usage: stepUsage, ...(response.fellBackTo ? { model: response.fellBackTo } : {}) };
        messages.push(assistant);

        const toolUses = response.content.filter((b): b is Extract<ContentBlockParam, { type: 'tool_use' }> => b.type === 'tool_use');
        if (response.stopReason === 'pause_turn') {
          await append(record);
          continue;
        }
        if (toolUses.length === 0) {
          // The answer is written with the run's ending, in one round trip, where the log can.
          if (c.ports.appendTogether) unwritten = record;
          else await append(record);
          const reason = response.stopReason === 'max_tokens' ? 'the answer reached the output token limit' : undefined;
          return { status: 'completed', steps, usage, reason };
        }
        // A call with side effects runs only once its tool_use is durable (exactly once per call, across a crash);
        // read-only calls run before it is written, since running one twice changes nothing.
        const step = stepRecord(c.ports, record, !toolUses.every((call) => runsEarly(c.deps.tools.get(call.name))));
        await step.written;

        const waiting = await runTools(toolUses, step);
        if (waiting.length) return awaiting(waiting);
      }
    })();
    endStep();
  } catch (error) {
    endStep(error);
    const stop = stopped();
    // What a stopped call had used is billed all the same; a call that failed lets go of its hold.
    if (stop && ModelCallAborted.isInstance(error) && error.usage) {
      const billed = { ...error.usage, cost_usd: costOf(c.run.model, error.usage) };
      addUsage(usage, billed);
      c.deps.budget?.spend(billed, hold);
    } else if (hold) c.deps.budget?.spend(zeroUsage(), hold);
    hold = undefined;
    if (stop) outcome = stop;
    // The step in flight is not recorded: a handover redoes it where the run continues.
    else if (StepOutOfTime.isInstance(error)) outcome = { status: error.handover ? 'handover' : 'limit', steps: error.handover ? steps - 1 : steps, usage, reason: error.message };
    else {
      const described = describeFailure(error, c.deps.secrets ?? []);
      outcome = { status: 'error', steps, usage, reason: described.message, error: described };
    }
  }
  const concluded = await c.ports.conclude?.(outcome, unwritten);
  if (concluded) outcome = { ...outcome, usage: addUsage({ ...outcome.usage }, concluded) };
  return endRun({ sessionId: c.run.sessionId, runId, append, appendTogether: c.ports.appendTogether, unwritten, emit, secrets: c.deps.secrets, settle: c.ports.settle, announce: c.ports.announce }, outcome);
}

/**
 * The run's tools: the registry's, and those its agent's MCP servers list now,
 * granted to the agent for this run only (a resumed run lists them again).
 */
async function withFoundTools<S extends object>(c: LoopContext<S>): Promise<LoopContext<S>> {
  const fromServers = c.deps.mcp ? await c.deps.mcp.toolsFor(c.run.agent, { sessionId: c.run.sessionId }).catch(() => []) : [];
  // A run of a plan reports its progress through the plan's steps (see plan/progress.ts).
  const found = c.run.options?.planSteps?.length ? [...fromServers, createPlanProgressTool(c.run.options?.planSteps)] : fromServers;
  if (found.length === 0) return c;
  const names = found.map((tool) => tool.name);
  return { ...c, deps: { ...c.deps, tools: c.deps.tools.extend(found) }, run: { ...c.run, agent: { ...c.run.agent, tools: [...c.run.agent.tools, ...names] } } };
}

interface ModelResponse {
  content: ContentBlockParam[];
  stopReason: string | null;
  usage: ModelUsage;
  /** The model that answered, when it is not the run's: the step fell back to it. */
  fellBackTo?: string;
  cost?: { usd: number; known: boolean };
}

/**
 * A step's model call ran into the time the run has: the run's wall time
 * (`limit`), or this process's deadline, where the run hands over and the
 * step is redone elsewhere.
 */
class StepOutOfTime extends defineErrorClass('StepOutOfTime') {
  constructor(
    message: string,
    readonly handover: boolean,
  ) {
    super(message);
  }
}

/** Until when a step's model call may run: the run's wall time, and short of this process's deadline (time to record the handover). */
function stepBound(limits: RunLimits, run: Pick<RunSpec, 'deadline' | 'handoverReserveMs'>, started: number): { at: number; handover: boolean } {
  const wall = started + limits.wallTimeMs;
  if (!run.deadline) return { at: wall, handover: false };
  const handoverAt = run.deadline - (run.handoverReserveMs ?? 60_000) / 4;
  return handoverAt < wall ? { at: handoverAt, handover: true } : { at: wall, handover: false };
}

const thinkingOf = (c: LoopContext) => thinkingFor(c.run.model, { thinking_budget: c.run.options?.thinkingBudget ?? c.run.agent.thinking_budget }, c.deps.limits);

/** A call's `max_tokens`: the thinking budget is spent within it, so the answer keeps its own allowance beside it. */
const maxTokensOf = (c: LoopContext) => c.deps.limits.maxOutputTokensPerCall + (thinkingOf(c)?.budgetTokens ?? 0);

/**
 * One step's model call. A stream that fails mid-way (or falls silent for
 * longer than the idle timeout) is retried as a whole, with backoff and a
 * bound; nothing of the failed attempt is kept, and the client is told with a
 * `retry` event to discard that attempt's text. A stop is not a failure: it
 * ends the call at once, without a retry. The whole call is bounded by the
 * time the run has left.
 */
async function callModel(
  c: LoopContext,
  system: ReturnType<typeof buildSystemPrompt>,
  tools: ReturnType<ToolRegistry['definitions']>,
  messages: MessageParam[],
  step: number,
  emit: Emit,
  bound: { at: number; handover: boolean },
): Promise<ModelResponse> {
  const origin = { agent_id: c.run.agent.id, run_id: c.run.runId };
  for (let attempt = 1; ; attempt++) {
    const controller = new AbortController();
    const onAbort = () => controller.abort();
    c.signal?.addEventListener('abort', onAbort, { once: true });
    if (c.signal?.aborted) controller.abort();
    let outOfTime = false;
    const cutoff = setTimeout(
      () => {
        outOfTime = true;
        controller.abort();
      },
      Math.min(Math.max(0, bound.at - Date.now()), MAX_TIMER_MS),
    );
    let fellBackTo: string | undefined;
    const inputs = new ToolInputDeltas((id, name, delta) => emit({ type: 'tool_call_delta', id, name, delta, ...origin }));
    try {
      const thinking = thinkingOf(c);
      const maxTokens = maxTokensOf(c);
      const request = { model: c.run.model, system, tools, messages: withConversationBreakpoint(messages), maxTokens, ...(thinking ? { thinking } : {}), ...(c.run.agent.fallback ? { fallback: c.run.agent.fallback } : {}) };
      for await (const event of c.deps.provider.stream(request, controller.signal, { idleTimeoutMs: c.deps.limits.modelIdleTimeoutMs })) {
        if (event.type === 'text') emit({ type: 'text', delta: event.delta, ...origin });
        else if (event.type === 'thinking') emit({ type: 'thinking', delta: event.delta, ...(event.redacted ? { redacted: true } : {}), ...origin });
        else if (event.type === 'tool_input_delta') inputs.add(event.id, event.name, event.delta);
        else if (event.type === 'tool_use' || event.type === 'server_tool_use') {
          inputs.complete(event.id);
          emit({ type: 'tool_call', id: event.id, name: event.name, input: event.input, ...origin });
        } else if (event.type === 'server_tool_result')
          emit({ type: 'tool_result', id: event.id, name: event.name, content: event.content, is_error: event.is_error, ...origin });
        // Before anything of the step was relayed: the step is redone whole on the next provider.
        else if (event.type === 'fallback') {
          fellBackTo = event.to;
          emit({ type: 'retry', step, attempt, reason: redact(event.reason, c.deps.secrets ?? []), provider: event.to, ...origin });
        } else return { content: event.content, stopReason: event.stopReason, usage: event.usage, cost: event.cost, ...(fellBackTo ? { fellBackTo } : {}) };
      }
      throw new ModelError('the model stream ended without a message', true);
    } catch (error) {
      // A stop ends the step as it is: the loop records the run as cancelled.
      if (c.signal?.aborted) throw ModelCallAborted.isInstance(error) ? error : new ModelCallAborted();
      if (outOfTime) {
        const why = bound.handover
          ? 'the step ran into the time limit of this process; it is redone where the run continues'
          : `time limit reached (${c.deps.limits.wallTimeMs} ms) during a model call`;
        if (bound.handover) emit({ type: 'retry', step, attempt, reason: why, ...origin });
        throw new StepOutOfTime(why, bound.handover);
      }
      if (!(ModelError.isInstance(error) && error.midStream) || attempt >= c.deps.limits.stepAttempts) throw error;
      emit({ type: 'retry', step, attempt, reason: redact(error.message, c.deps.secrets ?? []), ...origin });
      await sleep(c.deps.limits.retryBaseMs * 2 ** (attempt - 1) * (0.75 + Math.random() * 0.5), c.signal);
    } finally {
      clearTimeout(cutoff);
      inputs.clear();
      c.signal?.removeEventListener('abort', onAbort);
    }
  }
}

/**
 * A step's `assistant` record. A step with side effects writes it at once (`written`: its calls run once it
 * is durable). A step of read-only calls writes it with its first result, in one round trip (given
 * `appendTogether`; without it, at once, while its calls run), or alone as soon as something else must
 * follow it in the log (an approval request, a command's entry, a waiting call): `durable()`. A crash
 * before then loses the step, and the resumed run asks the model again.
 * `record` undefined: the step's record is already in the log (a resumed run's pending calls).
 */
function stepRecord({ append, appendTogether }: Pick<RunPorts, 'append' | 'appendTogether'>, record: NewLogRecord | undefined, now: boolean) {
  let writing: Promise<void> | undefined = !record ? Promise.resolve() : now || !appendTogether ? append(record) : undefined;
  // Awaited wherever the step goes; this only keeps an early failure from counting as unhandled.
  writing?.catch(() => undefined);
  return {
    /** Resolves once a step with side effects has its record durable; at once for a read-only step. */
    written: now ? writing! : Promise.resolve(),
    durable: (): Promise<void> => (writing ??= append(record!)),
    /** Appends `next` after the step's record: with it, in one round trip, while that is not written yet. */
    appendAfter: async (next: NewLogRecord): Promise<void> => {
      if (writing) {
        await writing;
        return append(next);
      }
      writing = appendTogether!([record!, next]);
      return writing;
    },
  };
}

/** A call that may run while its step's record is written: read-only, and starting no other agent's run. */
function runsEarly(tool: { readOnly?: boolean; startsRuns?: boolean } | undefined): boolean {
  return tool?.readOnly === true && tool.startsRuns !== true;
}

/** setTimeout fires at once for delays past 2^31 - 1 ms. */
const MAX_TIMER_MS = 2 ** 31 - 1;

async function executeCall<S extends object>(
  c: LoopContext<S>,
  call: { id: string; name: string; input: unknown },
  reserve: () => string | undefined,
  /** Makes the step's `assistant` record durable: a request for approval is recorded only after it. */
  recorded: () => Promise<void>,
): Promise<ToolResult> {
  const refused = reserve();
  if (refused) return { content: `Not run: ${refused}. Answer with what you have.`, is_error: true, truncated: false };
  const context: ToolContext<S> = {
    sessionId: c.run.sessionId,
    runId: c.run.runId,
    toolCallId: call.id,
    idempotencyKey: `${c.run.runId}:${call.id}`,
    projectId: c.run.projectId,
    agent: c.run.agent,
    ...c.ports.services,
    ...(c.ports.permissionOverrides ? { permissionOverrides: c.ports.permissionOverrides } : {}),
    delegator: c.ports.delegator,
    requestApproval: c.ports.requestApproval && (async (request) => (await recorded(), c.ports.requestApproval!(request))),
    // After the step's `assistant` record, like an approval request: the log reads call, then what it ran.
    recordCommand: async (entry) => (await recorded(), c.ports.append({ kind: 'command', run_id: c.run.runId, ...entry })),
    // A stop request waits for the step's tools: the safe point is the end of the step.
    signal: new AbortController().signal,
  };
  // The client runs it: nothing runs here, and the call is recorded only after the step's `assistant` record.
  const clientTool = c.ports.callClientTool && c.run.options?.clientTools?.find((tool) => tool.name === call.name);
  if (clientTool) {
    await recorded();
    // One that stands in for a tool of Zero's (a self-hosted environment's `bash`) is under that tool's permission policy.
    const replaces = clientTool.replaces;
    return c.ports.callClientTool!(call, replaces ? () => c.deps.tools.permitAs(replaces, call.name, call.input, context) : undefined);
  }
  // Fencing protects the log, not a tool's side effects: confirm the lease as late as possible.
  await c.ports.confirmLease?.();
  return c.deps.tools.execute(call.name, call.input, context, { timeoutMs: c.deps.limits.toolTimeoutMs, maxOutputChars: c.deps.limits.maxToolOutputChars });
}

/** Waits `ms`, or less when `signal` is aborted meanwhile. */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
