import type { AgentDefinition } from '@zero/agent/definitions/definition';
import { EventRecorder } from '@zero/agent/events/recorder';
import type { StreamEvent } from '@zero/agent/wire';
import { zeroUsage } from '@zero/agent/events/usage';
import { RunDelegator } from '../run/delegate';
import { LEASE_LOST, describeFailure, endRun, logRunEnd, type RunEnding, type RunOutcome } from '@zero/agent/loop/end-run';
import { toMessages } from '@zero/agent/loop/history';
import { loadAttachmentData, type AttachmentData } from '../files/attachments';
import { runLoop, type RunPorts } from '@zero/agent/loop/loop';
import type { ActiveRunBudget } from '@zero/agent/loop/budget';
import { activeBranch } from '../store/branches';
import { memoryIndexFor } from '../memory/session-memory';
import { frameworkHintsFor } from '../tools/api-testing/framework-hints';
import { resolveRunSetup, routeMessage } from '@zero/agent/loop/run-setup';
import { runEffort } from '@zero/agent/model/thinking';
import { routeOf } from '@zero/agent/model/complexity-routing';
import type { RunLease, StopRequest } from '../store/lease-store';
import { POSITION_BLOCKS, PositionPool, fencedOut } from '../store/positions';
import { MAX_RECORDS_PER_ITEM } from '../store/items/log-record';
import type { LogRecord, NewLogRecord, SessionMeta } from '../store/records';
import type { ToolResult } from '@zero/agent/tools/registry';
import { toolServices } from '../tools/tool';
import { APPROVERS, clientAnswerOf, deciderName } from './approvals';
import { askPerson } from './ask-person';
import type { PermissionMap } from '@zero/agent/wire';
import { resumeState } from '@zero/agent/loop/resume-state';
import { concludeRun } from './conclude-run';
import { selfHostedEnvironmentIn } from './session-environment';
import { withEnvironmentTools, withoutServerCommands } from '@zero/agent/loop/environment-tools';
import type { NewMessage, SessionRunnerDeps } from './runner-deps';
import { readSessionRecord } from '../store/session-record';

/** How finely a session's `updated_at` follows its activity. */
const ACTIVITY_GRAIN_MS = 60_000;
/** The longest summary a compaction asks for (capped by the run's output limit per call). */
const SUMMARY_MAX_TOKENS = 4096;

/**
 * A new message to answer (from the inbox, or straight from its sender, then
 * without an arrival number), or an unfinished run (its user message already
 * in the log) to carry on. `onRecorded` is called once the message is in the log.
 */
export type RunSpec =
  | {
      runId: string;
      message: NewMessage & { message_id?: number };
      record?: undefined;
      onRecorded?: () => void;
      /** The session was created with this message: nothing of it is stored beyond its meta item and its owner (no `/v1` record to read). */
      newSession?: boolean;
    }
  | { runId: string; record: Extract<LogRecord, { kind: 'user_message' }>; message?: undefined; onRecorded?: undefined; newSession?: undefined };

/**
 * Runs one message (or carries an unfinished run on) and ends it: whatever
 * fails, its readers get one last event, `done` (or `handover`), and the log
 * its `run_end` when the store takes it. Rethrows a storage failure after
 * that, so the drive stops; a lost lease is an outcome, not a failure.
 */
export async function runMessage(
  deps: SessionRunnerDeps,
  session: SessionMeta,
  lease: RunLease,
  spec: RunSpec,
  history: LogRecord[],
  controller: AbortController,
  applyStop: (stop: StopRequest | undefined) => void,
  deadline?: number,
): Promise<{ session: SessionMeta; outcome: RunOutcome }> {
  const sessionId = session.session_id;
  const runId = spec.runId;
  const logPositions = new PositionPool(deps.leases, lease, 'log', POSITION_BLOCKS.log, runId, applyStop);
  const eventPositions = new PositionPool(deps.leases, lease, 'event', POSITION_BLOCKS.event, runId, applyStop);
  const recorder = new EventRecorder(
    {
      allocate: () => eventPositions.next(),
      write: (seq, events) => deps.sessions.putEvents(sessionId, { seq, run_id: runId, events }).catch(fencedOut),
    },
    deps.eventFlushMs,
  );
  await recorder.open();
  deps.runs.attach(sessionId, runId, recorder, controller);
  // Tool calls by tool (the run's and its delegated runs'), for the usage counters (added with each step's usage).
  const toolCalls = new Map<string, number>();
  let finished = false;
  const emit = (event: StreamEvent) => {
    if (event.type === 'tool_call') toolCalls.set(event.name, (toolCalls.get(event.name) ?? 0) + 1);
    recorder.emit(event);
  };

  /**
   * Stores records at the next positions of the log (or the first at `seq`, a position the run already took).
   * Records given together are written in one item (one round trip) when the lease hands out consecutive
   * positions for them, which it does but across a block's end; else one item each.
   */
  const append = async (records: NewLogRecord | readonly NewLogRecord[], seq?: number) => {
    if (recorder.failure) throw recorder.failure;
    const write = (at: number, group: NewLogRecord[]) =>
      deps.sessions
        .append(sessionId, at, group.length === 1 ? group[0]! : group, undefined, (stored) => {
          history.push(...stored);
          // An edit or a regenerate: the records of the branch it leaves are no longer the conversation (kept in place: the loop holds this array).
          if (stored.some((r) => r.kind === 'user_message' && r.branch_from !== undefined)) history.splice(0, history.length, ...activeBranch(history));
        })
        .catch(fencedOut);
    const [first, ...rest] = ([] as NewLogRecord[]).concat(records);
    let at = seq ?? (await logPositions.next());
    let group = [first!];
    for (const record of rest) {
      if (group.length < MAX_RECORDS_PER_ITEM && logPositions.takeNext(at + group.length)) {
        group.push(record);
        continue;
      }
      await write(at, group);
      at = await logPositions.next();
      group = [record];
    }
    await write(at, group);
  };
  // The images and PDFs of the conversation, read once per run when the model is first called (after this run's message is recorded).
  let attachmentsRead: Promise<AttachmentData> | undefined;
  const conversationAttachments = () =>
    (attachmentsRead ??= loadAttachmentData(deps.artifacts, history.flatMap((r) => (r.kind === 'user_message' && !r.parent_run_id ? (r.attachments ?? []) : []))));
  // The session's permission overrides, read once, at the run's first tool call, and only when it has any.
  // Read while the run sets up; a session in a self-hosted environment sends its commands to the environment's worker.
  // The session's `/v1` record (its environment, attached memory stores), read once per run; a session created with
  // this message has none yet (one written meanwhile applies from its next run, as a changed record always does).
  const recordRead = spec.newSession ? Promise.resolve(undefined) : readSessionRecord(deps.artifacts, sessionId);
  const environmentRead = recordRead.then(selfHostedEnvironmentIn);
  environmentRead.catch(() => undefined);
  let overrides: Promise<PermissionMap | undefined> | undefined;
  const permissionOverrides = () => (overrides ??= session.has_permission_overrides ? deps.sessions.getPermissions(sessionId).then((p) => p?.permissions) : Promise.resolve(undefined));
  // The agent that answers, once resolved: it tags the run's `confirmation_required` events.
  let agentOf: string | undefined;
  let agentOfRun: AgentDefinition | undefined;
  // A call the policy marks `ask` waits for a person (see ask-person.ts); so does a delegated run's.
  const approvals = askPerson(history);
  const requestApproval = approvals({ runId, agentId: () => agentOf, append, emit });
  /**
   * A call of a client tool: answered by the result a client sent (a resumed run), or by the note of a
   * call nobody answered in time (expired or interrupted, as an approval); else recorded as waiting
   * (once) and reported as `client_tool_call`, and the run waits as for an approval. `permit` (the
   * permission policy of the tool it stands in for) is asked before the call is handed over: a refusal,
   * or a wait for a person's approval, answers the call instead, and nothing is handed over.
   */
  const callClientTool = async (call: { id: string; name: string; input: unknown }, permit?: () => Promise<ToolResult | undefined>): Promise<ToolResult> => {
    const { asked, answer: answered } = clientAnswerOf(history, runId, call.id);
    if (answered?.result) return { content: answered.result.content, is_error: !!answered.result.is_error, truncated: !!answered.result.truncated };
    if (answered) return { content: `Client tool "${call.name}" got no result: ${answered.message ?? `${deciderName(answered)} answered without one`}.`, is_error: true, truncated: false };
    if (!asked) {
      const refused = await permit?.();
      if (refused) return refused;
      // What the call waits on, as the session's status shows it: a client, or a self-hosted environment's worker.
      const environment = await environmentRead.catch(() => undefined);
      const policy = environment?.tools.some((tool) => tool.name === call.name) ? `self-hosted environment ${environment.id} (waits for its worker)` : 'client tool';
      await append({ kind: 'approval_request', run_id: runId, tool_use_id: call.id, name: call.name, input: call.input, policy, client_tool: true });
      emit({ type: 'client_tool_call', id: call.id, name: call.name, input: call.input, may_answer: [...APPROVERS], agent_id: agentOf, run_id: runId });
    }
    return { content: `Client tool "${call.name}" waits for a client's result.`, is_error: true, truncated: false, waiting: true };
  };
  const services = toolServices(deps);
  // Before every tool call of the run, its delegates' included (see LeaseStore.confirm).
  const confirmLease = () => deps.leases.confirm(lease, runId).then(applyStop);
  // The run's user message is in the log (it is resumed, or was just moved there): only then is its end recorded.
  let recorded = !!spec.record;
  // The sessions list shows which sessions wait for a person: a field of the meta item, written (before the run's
  // `done`, so a list fetched on it is current) only when it changes.
  const settle = async (waits: boolean) => {
    if (waits === !!next.awaiting_approval_since) return;
    const since = waits ? new Date().toISOString() : null;
    next = { ...next, awaiting_approval_since: since };
    await deps.sessions.updateSession(sessionId, { awaiting_approval_since: since }).catch(() => undefined);
  };
  // Subscribers' reports of the run's ending are written before it (see RunEnding.announce).
  const announce: RunEnding['announce'] = async (record) => deps.onRunEnding?.({ session: next, runId, record });
  const ending = () => ({ sessionId, runId, append, emit, secrets: deps.secrets, recorded, settle, announce });
  /** A completed run's conclusion, before its `done`: a new session's title, its outcome's grade (see conclude-run.ts). */
  const conclude: RunPorts['conclude'] = async (outcome, unwritten) => {
    // The answer is written with the run's end, after this: the title and the grade read it from the run.
    const withAnswer = unwritten ? [...history, unwritten as LogRecord] : history;
    const concluded = await concludeRun(deps, { sessionId, runId, title: next.title, emit, budget, signal: controller.signal }, outcome, withAnswer);
    if (concluded.title) next = { ...next, title: concluded.title };
    return concluded.usage;
  };
  /** Folds the oldest turns into a summary (a model call of Zero's own) and records it; the log keeps every turn. */
  const compact: RunPorts['compact'] = async ({ model, tokensBefore, window, estimate }) => {
    const { planCompaction, summarise } = await import('@zero/agent/loop/summarise');
    const plan = planCompaction(history, agentOfRun?.compaction?.keep_turns ?? deps.limits.compactKeepTurns, runId);
    if (!plan) return undefined;
    const maxTokens = Math.min(SUMMARY_MAX_TOKENS, deps.limits.maxOutputTokensPerCall);
    const { summary, usage } = await summarise(deps.provider, model, plan, { window, maxTokens, signal: controller.signal });
    const record = { kind: 'compaction' as const, run_id: runId, through_run_id: plan.throughRunId, turns_folded: plan.turns, summary, tokens_before: tokensBefore, usage };
    const tokensAfter = estimate(toMessages([...history, { ...record, tokens_after: 0 } as unknown as LogRecord], { openRunId: runId, attachments: await conversationAttachments() }));
    await append({ ...record, tokens_after: tokensAfter });
    return { messages: toMessages(history, { openRunId: runId, attachments: await conversationAttachments() }), usage, turns: plan.turns, tokensAfter };
  };

  const background: Promise<unknown>[] = [];
  let next = session;
  // The run's budgets; it is listed among the active runs (GET /admin/runs) until it ends here.
  let budget: ActiveRunBudget | undefined;
  let budgetOpened: Promise<ActiveRunBudget | undefined> | undefined;
  try {
    const message = spec.message;
    // The voice the message or the session asked for: delegates without one speak in their own default voice.
    const requestedVoice = message ? (message.voice_mode ?? session.voice_mode) : undefined;
    const agentId = message ? (message.agent_id ?? session.agent_id ?? deps.defaultAgentId) : spec.record.agent_id;
    let { agent, model, voice } = await resolveRunSetup(
      deps.catalog,
      message
        ? { agentId, fallbackAgentId: session.agent_id, model: message.model, voice: requestedVoice }
        : { agentId, fallbackAgentId: session.agent_id, model: spec.record.model, voice: spec.record.voice_mode },
      deps.defaultModel,
      deps.tiers,
    );
    // Spend counts against the session, the user who sent the message (its creator for a resumed run's older records) and the deployment.
    const payer = (message ? message.author?.id : spec.record.author?.id) ?? session.created_by ?? 'unknown';
    // The run's budget reads the session's counter and lists the run while the run sets up and records its message.
    budgetOpened = agent ? deps.budgets?.().then((budgets) => budgets.forRun({ sessionId, runId, userId: payer, agentId: agent!.id, instance: deps.instanceId, expiresAt: Date.now() + deps.limits.wallTimeMs + 60_000, toolCalls })) : undefined;
    budgetOpened?.catch(() => undefined);
    // Read while the agent was resolved.
    const environment = await environmentRead;
    // Whichever door the message came through, the environment's tools are the run's (recorded with the message, so a resumed run has them).
    const clientTools = environment ? withEnvironmentTools(message ? message.client_tools : spec.record.client_tools, environment) : message ? message.client_tools : spec.record.client_tools;
    // Tier routing (Agent Zero's F1–F5) and a request's required tools: what the run may use, decided once and recorded.
    const routing = message && agent ? routeMessage(message, agent, model, { rules: deps.complexityRules ?? [], tiers: deps.tiers, defaultModel: deps.defaultModel }) : undefined;
    if (routing?.decision && !message?.model) model = routing.model;
    const routedTools = message ? routing?.tools : spec.record.routed_tools;
    if (message) {
      // The agent that answered the session's last message, before this one is recorded.
      const lastMessage = history.findLast((r): r is Extract<LogRecord, { kind: 'user_message' }> => r.kind === 'user_message' && !r.parent_run_id);
      const previousAgent = lastMessage?.agent_id ?? session.agent_id;
      const effort = runEffort(model, { thinking_budget: message.thinking_budget ?? agent?.thinking_budget }, deps.limits);
      emit({ type: 'start', session_id: sessionId, run_id: runId, model, effort, agent_id: agent?.id ?? agentId });
      // A message's id is its position in the log: ids follow the order the session answered its messages in.
      const messageId = await logPositions.next();
      await append(
        {
          kind: 'user_message',
          run_id: runId,
          message_id: messageId,
          text: message.text,
          ...(message.attachments?.length ? { attachments: message.attachments } : {}),
          ...(message.author ? { author: message.author } : {}),
          agent_id: agent?.id ?? agentId,
          model,
          voice_mode: voice,
          ...(clientTools?.length ? { client_tools: clientTools } : {}),
          ...(message.thinking_budget !== undefined ? { thinking_budget: message.thinking_budget } : {}),
          effort,
          ...(message.plan_steps?.length ? { plan_steps: message.plan_steps } : {}),
          ...(message.max_tool_iterations ? { max_tool_iterations: message.max_tool_iterations } : {}),
          ...(routedTools ? { routed_tools: routedTools } : {}),
          ...(message.outcome ? { outcome: message.outcome } : {}),
          ...(message.system_prompt ? { system_prompt: message.system_prompt } : {}),
          ...(message.branch_from !== undefined ? { branch_from: message.branch_from } : {}),
        },
        messageId,
      );
      recorded = true;
      spec.onRecorded?.();
      if (agent && agent.id !== previousAgent) emit({ type: 'agent_switch', from: previousAgent ?? null, to: agent.id, reason: 'switch', agent_id: agent.id, run_id: runId });
      emit({ type: 'message', message_id: messageId, text: message.text, ...(message.attachments?.length ? { attachments: message.attachments } : {}), ...(message.author ? { author: message.author } : {}), run_id: runId, ...(message.outcome ? { outcome: message.outcome } : {}), ...(message.branch_from !== undefined ? { branch_from: message.branch_from } : {}) });
      if (routing?.decision && agent) {
        const { level, by, rule } = routing.decision;
        emit({ type: 'routing', level, by, ...(rule ? { rule } : {}), tier: routeOf(level).tier, model, tools: routedTools ?? agent.tools, agent_id: agent.id, run_id: runId });
      }
      const now = new Date().toISOString();
      const changed = { agent_id: agent?.id ?? session.agent_id, project_id: message.project_id ?? session.project_id };
      // The meta item is rewritten when the agent or project changes, and otherwise to keep `updated_at` (the
      // session's last activity) to the minute: a quick exchange of messages costs no write per run.
      const stale = changed.agent_id !== session.agent_id || changed.project_id !== session.project_id || !(Date.parse(now) - Date.parse(session.updated_at) < ACTIVITY_GRAIN_MS);
      next = { ...session, ...changed, updated_at: stale ? now : session.updated_at };
      // Off the path to the first model call: neither has to be durable before the run starts (a message left in
      // the inbox is dropped by the next drain, as it is in the log).
      if (message.message_id !== undefined) background.push(deps.sessions.removeFromInbox(sessionId, message.message_id).catch(() => undefined));
      if (stale) background.push(deps.sessions.updateSession(sessionId, { ...changed, updated_at: now }).catch(() => undefined));
    } else {
      emit({ type: 'start', session_id: sessionId, run_id: runId, model, effort: runEffort(model, { thinking_budget: spec.record.thinking_budget ?? agent?.thinking_budget }, deps.limits), agent_id: agent?.id ?? agentId, resumed: true });
    }

    if (!agent) {
      const error = { code: 'agent_not_found', message: `agent "${agentId}" is no longer available` };
      return { session: next, outcome: await endRun(ending(), { status: 'error', steps: 0, usage: zeroUsage(), reason: error.message, error }) };
    }
    // A routed run uses only its routed tools (none: text only); its agent's MCP tools are not listed.
    if (routedTools) agent = { ...agent, tools: routedTools, ...(agent.mcp ? { mcp: { ...agent.mcp, tools: [] } } : {}) };
    // A session with memory stores attached (Managed Agents `resources`) reaches them with the memory tool; its prompt says where.
    else {
      const attached = ((await recordRead)?.resources ?? []).filter((r) => r.type === 'memory_store');
      if (attached.length) {
        const section = (await import('../memory/attached-stores')).attachedStoresSection(attached);
        agent = { ...agent, tools: agent.tools.includes('memory') ? agent.tools : [...agent.tools, 'memory'], extra: agent.extra ? `${agent.extra}\n\n${section}` : section };
      }
    }
    agentOf = agent.id;
    agentOfRun = agent;

    budget = await budgetOpened;
    const runDeps = { ...deps, budget };
    // What the run reads of the runtime before the loop starts (its memory index, skills and the project's framework hints) and its delegations: the loop gets them all at once.
    const memory = await memoryIndexFor(deps, sessionId, agent, next.project_id);
    const skills = agent.skills?.length ? await (await import('../skills/session-skills')).sessionSkills(deps, sessionId, agent) : undefined;
    const frameworkHints = await frameworkHintsFor(deps.projects, agent, next.project_id);
    const delegator = RunDelegator.forRun(
      { deps: runDeps, defaultModel: deps.defaultModel, tiers: deps.tiers, sessionId, projectId: next.project_id, voice: requestedVoice, history, append, appendTogether: append, emit, approvals, signal: controller.signal, deadline: Date.now() + deps.limits.wallTimeMs, confirmLease, environment },
      agent,
      runId,
    );
    const outcome = await runLoop(
      {
        deps: runDeps,
        run: {
          sessionId,
          runId,
          agent: environment ? withoutServerCommands(agent) : agent,
          model,
          voice,
          projectId: next.project_id,
          messages: toMessages(history, { openRunId: runId, attachments: await conversationAttachments() }),
          resume: spec.record ? resumeState(history, runId) : undefined,
          deadline,
          handoverReserveMs: deps.handoverReserveMs,
          options: {
            clientTools,
            thinkingBudget: message ? message.thinking_budget : spec.record.thinking_budget,
            planSteps: message ? message.plan_steps : spec.record.plan_steps,
            maxToolIterations: message ? message.max_tool_iterations : spec.record.max_tool_iterations,
            systemPrompt: message ? message.system_prompt : spec.record.system_prompt,
            memory,
            skills,
            frameworkHints,
          },
        },
        ports: {
          append,
          appendTogether: append,
          services,
          permissionOverrides,
          delegator,
          requestApproval,
          callClientTool,
          confirmLease,
          settle,
          announce,
          compact,
          conclude,
        },
        signal: controller.signal,
      },
      emit,
    );
    finished = outcome.status !== 'handover' && outcome.status !== 'awaiting_approval';
    logRunEnd({ sessionId, runId, userId: payer, agentId: agent.id }, outcome);
    return { session: next, outcome };
  } catch (error) {
    // Only storage failures reach here (the loop itself never throws): end the run for its readers, then stop the drive.
    const described = describeFailure(error, deps.secrets ?? []);
    const outcome = await endRun(ending(), { status: 'error', steps: 0, usage: zeroUsage(), reason: described.message, error: described });
    if (outcome.error?.code === LEASE_LOST) return { session: next, outcome };
    throw error;
  } finally {
    // A run that ended before it waited for its budget (its message could not be recorded) is unlisted all the same.
    background.push(Promise.resolve(budgetOpened).then((opened) => opened?.ended({ finished, toolCalls })));
    await Promise.allSettled(background);
    await recorder.close();
    deps.runs.detach(sessionId, runId, recorder);
  }
}
