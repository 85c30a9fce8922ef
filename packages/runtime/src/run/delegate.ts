import type { AgentDefinition } from '@zero/agent/definitions/definition';
import { ZeroError } from '@zero/agent/errors';
import type { StreamEvent, Usage, VoiceMode } from '@zero/agent/wire';
import { zeroUsage } from '@zero/agent/events/usage';
import type { MessageParam } from '@zero/agent/model/provider';
import type { ModelTiers } from '@zero/agent/model/aliases';
import type { LogRecord, NewLogRecord } from '../store/records';
import { memoryIndexFor } from '../memory/session-memory';
import { frameworkHintsFor } from '../tools/api-testing/framework-hints';
import { toolServices, type DelegationRequest, type Delegator, type ToolOutput, type ToolServices } from '../tools/tool';
import { finalText, textOf, toMessages } from '@zero/agent/loop/history';
import { runLoop, type Emit, type RunDeps, type RunOutcome } from '@zero/agent/loop/loop';
import { redact } from '@zero/agent/log/redact';
import { refuseInDelegatedRun, withoutServerCommands, type RunEnvironment } from '@zero/agent/loop/environment-tools';
import { resolveRunSetup, type RunSetup } from '@zero/agent/loop/run-setup';
import type { ApprovalPort } from '../sessions/ask-person';
import { resumeState } from '@zero/agent/loop/resume-state';

/** What every delegation under one top-level run shares: the session, its log and its stream. */
export interface DelegationScope {
  /** The run's deps and its tools' services: a child's tools get the same services. */
  deps: RunDeps & ToolServices;
  /** The model for an agent whose definition names none. */
  defaultModel: string;
  /** The deployment's model of each tier (a delegation may ask for one). */
  tiers?: ModelTiers;
  sessionId: string;
  projectId?: string;
  /** The voice the request or the session asked for; without one, each delegate speaks in its own default voice. */
  voice?: VoiceMode;
  /**
   * The session log as this process knows it. A child run that already has
   * records (its parent is being resumed after a crash) continues from them.
   */
  history: readonly LogRecord[];
  /** The top-level run's `append` (fenced by the session's lease). */
  append: (record: NewLogRecord) => Promise<void>;
  /** The top-level run's `appendTogether` (see `RunParams.appendTogether`); absent: a child writes each record alone. */
  appendTogether?: (records: readonly NewLogRecord[]) => Promise<void>;
  /** The top-level run's `emit`: child events go to the same stream, tagged. */
  emit: Emit;
  /**
   * Asks a person about a child's call its policy marks `ask`, as the top-level run asks about its own (the
   * session's `askPerson`): the request is recorded and reported, the child and its callers wait, and a decision
   * carries the top-level run on, which runs the delegation again and the child from its log. Absent: `ask` refuses.
   */
  approvals?: ApprovalPort;
  /** The top-level run's stop signal; a child stops at its next safe point too. */
  signal?: AbortSignal;
  /** When the top-level run's time is up (epoch ms); a child run gets what is left. */
  deadline: number;
  /** The top-level run's lease check before a tool call: a child's calls are made under the same lease. */
  confirmLease?: () => Promise<void>;
  /**
   * The session's self-hosted environment, if it is in one: a child run has its tools in place of
   * Zero's, as its caller does, and none of Zero's command tools; it cannot wait for the worker, so
   * its calls of them are refused, saying why (see `refuseInDelegatedRun`).
   */
  environment?: RunEnvironment;
}

/** The run that delegates: its agent, its run id, and the agents above it (root first, itself last). */
interface Caller {
  agent: AgentDefinition;
  runId: string;
  chain: readonly string[];
}

/**
 * Runs `delegate_agent` calls as child runs: the caller's `## Delegation`
 * rules say whom it may ask, depth is bounded by `maxDelegationDepth`, and an
 * agent already working on the request cannot be asked again (no cycles).
 *
 * A child run is an ordinary run of the loop with the delegate's tools, model,
 * voice and limits. Its records go to the session log tagged `parent_run_id`
 * (so they are durable but not part of the caller's conversation); its events
 * go to the session's stream tagged with its agent, its run id and the
 * parent's run id, between two `agent_switch` events. Its final text is the
 * caller's tool result, and its usage rolls up into the caller's.
 */
export class RunDelegator implements Delegator {
  private constructor(
    private readonly scope: DelegationScope,
    private readonly caller: Caller,
  ) {}

  /** The delegator of a top-level run (the one answering a user's message). */
  static forRun(scope: DelegationScope, agent: AgentDefinition, runId: string): RunDelegator {
    return new RunDelegator(scope, { agent, runId, chain: [agent.id] });
  }

  async delegate(request: DelegationRequest, call: { toolCallId: string; signal: AbortSignal }): Promise<ToolOutput> {
    const refusal = this.refusal(request.agentId);
    if (refusal) return { content: `Not delegated: ${refusal}`, is_error: true };
    const setup = await resolveRunSetup(this.scope.deps.catalog, { agentId: request.agentId, voice: this.scope.voice, tier: request.tier }, this.scope.defaultModel, this.scope.tiers);
    if (!setup.agent) {
      if (ZeroError.isInstance(setup.missing)) return { content: `Not delegated: ${setup.missing.message}`, is_error: true };
      throw setup.missing;
    }
    const remainingMs = this.scope.deadline - Date.now();
    if (remainingMs <= 0) return { content: 'Not delegated: the run has no time left. Answer with what you have.', is_error: true };
    return this.runChild({ ...setup, agent: setup.agent }, request, call, remainingMs);
  }

  /** Why the caller may not hand work to `targetId`, or undefined when it may. */
  private refusal(targetId: string): string | undefined {
    const { agent, chain } = this.caller;
    const maxDepth = this.scope.deps.limits.maxDelegationDepth;
    const allowed = agent.delegation.map((rule) => rule.agent_id);
    if (!allowed.includes(targetId)) {
      const options = agent.delegation.map((rule) => (rule.when ? `${rule.agent_id} (${rule.when})` : rule.agent_id));
      return options.length
        ? `${agent.id} may not delegate to "${targetId}". It may delegate to: ${options.join('; ')}.`
        : `${agent.id} may not delegate to any agent. Do the task yourself.`;
    }
    if (chain.includes(targetId)) {
      return `${targetId} is already working on this request (${[...chain, targetId].join(' → ')}); asking it again would go in circles. Do the task yourself or answer with what you have.`;
    }
    // The top-level agent is depth 0; the agent it delegates to, depth 1.
    const depth = chain.length;
    if (depth > maxDepth) {
      return maxDepth === 0
        ? 'delegation is turned off in this deployment. Do the task yourself.'
        : `delegation may nest ${maxDepth} level${maxDepth === 1 ? '' : 's'} deep, and ${[...chain, targetId].join(' → ')} would be ${depth}. Do the task yourself or answer with what you have.`;
    }
    return undefined;
  }

  private async runChild(
    { agent: target, model, voice }: RunSetup & { agent: AgentDefinition },
    request: DelegationRequest,
    call: { toolCallId: string; signal: AbortSignal },
    remainingMs: number,
  ): Promise<ToolOutput> {
    const { scope, caller } = this;
    // Derived from the caller's run and tool call, so a resumed caller finds the same child run in the log.
    const runId = `${caller.runId}:${call.toolCallId}`;
    const tags = { agent_id: target.id, run_id: runId, parent_run_id: caller.runId };
    const switchBack = ({ status, steps, usage }: Pick<RunOutcome, 'status' | 'steps' | 'usage'>) =>
      scope.emit({
        type: 'agent_switch',
        from: target.id,
        to: caller.agent.id,
        reason: 'return',
        tool_call_id: call.toolCallId,
        // A child run is given no process deadline, so it never hands over; its caller does, between steps.
        status: status === 'handover' || status === 'awaiting_approval' ? 'limit' : status,
        steps,
        usage,
        ...tags,
      });

    const earlier = scope.history.filter((record) => record.run_id === runId);
    const finished = earlier.find((record) => record.kind === 'run_end');
    if (finished?.kind === 'run_end') return answerOf(target, finished, finalText(earlier));

    scope.emit({ type: 'agent_switch', from: caller.agent.id, to: target.id, reason: 'delegate', tool_call_id: call.toolCallId, ...tags });
    let answer = finalText(earlier);
    const append = async (record: NewLogRecord) => {
      await scope.append({ ...record, parent_run_id: caller.runId });
      if (record.kind === 'assistant') answer = textOf(record.content);
    };
    const together = scope.appendTogether;
    const appendTogether =
      together &&
      (async (records: readonly NewLogRecord[]) => {
        await together(records.map((record) => ({ ...record, parent_run_id: caller.runId })));
        for (const record of records) if (record.kind === 'assistant') answer = textOf(record.content);
      });
    const emit: Emit = (event) => {
      // The child's end is reported by the `agent_switch` back to the caller, not by a second `done`.
      if (event.type === 'done') return;
      scope.emit({ ...event, ...tags } as StreamEvent);
    };

    let messages: MessageParam[];
    // A child that waited for a person carries on from its log: its last step's calls without results run now.
    // A child whose process died in the middle of a call does not run it again: the model is told it was interrupted.
    const lastStep = earlier.findLastIndex((record) => record.kind === 'assistant');
    const waitedForPerson = lastStep >= 0 && earlier.slice(lastStep).some((record) => record.kind === 'approval_request');
    const resume = waitedForPerson ? resumeState(earlier, runId) : undefined;
    try {
      if (earlier.length === 0) {
        const text = taskText(caller.agent, request);
        await append({ kind: 'user_message', run_id: runId, text, agent_id: target.id, model, voice_mode: voice });
        messages = [{ role: 'user', content: [{ type: 'text', text }] }];
      } else {
        messages = toMessages(earlier, waitedForPerson ? { runId, openRunId: runId } : { runId });
      }
    } catch (error) {
      const usage = zeroUsage();
      switchBack({ status: 'error', steps: 0, usage });
      const message = redact(error instanceof Error ? error.message : String(error), scope.deps.secrets ?? []);
      return { content: `Not delegated: the task could not be recorded (${message}).`, is_error: true };
    }

    const signals = [call.signal, ...(scope.signal ? [scope.signal] : [])];
    const outcome = await runLoop(
      {
        deps: { ...scope.deps, limits: { ...scope.deps.limits, wallTimeMs: Math.min(scope.deps.limits.wallTimeMs, remainingMs) } },
        run: {
          sessionId: scope.sessionId,
          runId,
          agent: scope.environment ? withoutServerCommands(target) : target,
          model,
          voice,
          projectId: scope.projectId,
          messages,
          ...(resume?.pending.length ? { resume } : {}),
          options: {
            ...(scope.environment ? { clientTools: scope.environment.tools } : {}),
            memory: await memoryIndexFor(scope.deps, scope.sessionId, target, scope.projectId),
            skills: target.skills?.length ? await (await import('../skills/session-skills')).sessionSkills(scope.deps, scope.sessionId, target) : undefined,
            frameworkHints: await frameworkHintsFor(scope.deps.projects, target, scope.projectId),
          },
        },
        ports: {
          append,
          appendTogether,
          services: toolServices(scope.deps),
          // The session's overrides, read at each call (a child run is short; its caller's may change meanwhile).
          permissionOverrides: async () => (await scope.deps.sessions.getPermissions(scope.sessionId))?.permissions,
          delegator: new RunDelegator(scope, { agent: target, runId, chain: [...caller.chain, target.id] }),
          confirmLease: scope.confirmLease,
          ...(scope.approvals ? { requestApproval: scope.approvals({ runId, agentId: () => target.id, append, emit }) } : {}),
          ...(scope.environment ? { callClientTool: async (call) => refuseInDelegatedRun(scope.environment!, call.name) } : {}),
        },
        signal: AbortSignal.any(signals),
      },
      emit,
    );
    // The child waits for people: so does its caller, on the same calls; their decisions run this call again, and the
    // child goes on from its log (no switch back: it has not returned, and its next invocation switches to it again).
    if (outcome.status === 'awaiting_approval' && outcome.pending?.length) {
      return { content: `${target.name} (${target.id}) waits for a person's decision.`, is_error: true, usage: outcome.usage, waitsOn: outcome.pending };
    }
    switchBack(outcome);
    return answerOf(target, outcome, answer);
  }
}

/** What the delegate is told: who asks, the task, and the caller's context. */
function taskText(caller: AgentDefinition, request: DelegationRequest): string {
  const parts = [`${caller.name} (${caller.id}) delegated this task to you:\n\n${request.task.trim()}`];
  if (request.context?.trim()) parts.push(`Context from ${caller.name}:\n\n${request.context.trim()}`);
  parts.push(`Your final message goes back to ${caller.name}, not to the user: make it a complete, self-contained report of what you found and how sure you are.`);
  return parts.join('\n\n');
}

/** The tool result the caller sees: the delegate's answer, or why there is none. */
function answerOf(target: AgentDefinition, outcome: Pick<RunOutcome, 'status' | 'usage' | 'reason'>, text: string): ToolOutput {
  const usage: Usage = outcome.usage;
  if (outcome.status === 'completed' && text) return { content: text, usage };
  const why = outcome.status === 'completed' ? 'finished without a written answer' : `stopped (${outcome.status}${outcome.reason ? `: ${outcome.reason}` : ''})`;
  const partial = text ? `\n\nWhat it had written so far:\n\n${text}` : '';
  return { content: `${target.name} (${target.id}) ${why}.${partial}`, is_error: true, usage };
}


