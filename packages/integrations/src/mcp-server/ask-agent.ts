import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import type { AgentDefinition } from '@zero/agent/definitions/definition';
import type { AuthUser } from '@zero/runtime/auth/authenticator';
import { ZeroError } from '@zero/agent/errors';
import { redact } from '@zero/agent/log/redact';
import { collectRun } from '@zero/runtime/sessions/collect-run';
import { startChat, type ChatDeps, type ChatRun, type IdentifiedEvent } from '@zero/runtime/sessions/start-chat';
import { MAX_MESSAGE_CHARS, projectIdSchema, sessionIdSchema } from '@zero/agent/wire';
import { errorText, log } from '@zero/agent/log/log';

/** What an `ask_<agent>` call takes. */
export const askInputSchema = z.strictObject({
  message: z.string().trim().min(1, 'must not be empty').max(MAX_MESSAGE_CHARS, `must be at most ${MAX_MESSAGE_CHARS} characters`).describe('What to ask the agent.'),
  session_id: sessionIdSchema.optional().describe('Continue this Zero session (from an earlier answer); without it a new session starts.'),
  project_id: projectIdSchema.optional().describe('The project the agent works on, "owner/repo" (list_projects shows yours).'),
});

const pendingCallSchema = z.object({ tool_call_id: z.string(), name: z.string(), input: z.unknown(), policy: z.string().optional() });

/** What an `ask_<agent>` call answers, as structured content beside the text. */
export const askOutputSchema = z.object({
  session_id: z.string().describe('The Zero session: pass it back to continue, or open it in the console.'),
  run_id: z.string(),
  /** `awaiting_approval`: the run waits for a person's decision on `pending`; `handover`: it goes on in the background. */
  status: z.string(),
  answer: z.string(),
  pending: z.array(pendingCallSchema).optional(),
});
type AskOutput = z.infer<typeof askOutputSchema>;

export interface AskOptions {
  /** Epoch ms by which the invocation must be done (Lambda); a run near it hands over. */
  deadline?: number;
}

type Notify = (notification: ServerNotification) => Promise<void>;

/**
 * The MCP tool of an agent: `ask_<agent id>`, in the characters MCP allows in a tool name
 * (`[A-Za-z0-9._-]`, at most 128): a pinned version of an agent made through `/v1`
 * (`agent_x@1`) is `ask_agent_x.v1`, which no file's agent id can be (they have no dot).
 */
export function askToolName(agentId: string): string {
  return `ask_${agentId.replace('@', '.v').replace(/[^A-Za-z0-9._-]/g, '_')}`.slice(0, 128);
}

/**
 * One tool per agent, `ask_<agent id>`: runs a Zero session as the caller
 * (the chat route's own path: startChat, then the run's events), tells the
 * client how it goes with progress notifications when it asked for them,
 * and answers with the text and the session id. A run that must wait for a
 * person answers at once with the calls it waits for; it is resumed by their
 * decision (console or API), not by this call.
 */
export function registerAgentTools(server: McpServer, deps: ChatDeps, caller: AuthUser, agents: readonly AgentDefinition[], options: AskOptions = {}) {
  for (const agent of agents) {
    server.registerTool(
      askToolName(agent.id),
      {
        title: `Ask ${agent.name}`,
        description: `Ask Zero's ${agent.name} agent: ${agent.description} Runs a Zero session as you and answers with its reply and the session id.`,
        inputSchema: askInputSchema,
        outputSchema: askOutputSchema,
        annotations: { readOnlyHint: false, openWorldHint: true },
      },
      (input, extra) => askAgent(deps, caller, agent.id, input, extra, options),
    );
  }
  server.registerTool(
    'delegate_agent',
    {
      title: 'Delegate to an agent',
      description:
        "Hand a task to a named Zero agent (get_agent_info lists them) and get its answer: runs a Zero session as you, as ask_<agent> does, under that agent's tools and policies. " +
        'The agent does not see your conversation: put everything it needs in task and context. Answers with its reply and the session id.',
      inputSchema: delegateInputSchema,
      outputSchema: askOutputSchema,
      annotations: { readOnlyHint: false, openWorldHint: true },
    },
    ({ agent_id, task, context, ...rest }, extra) => {
      const message = context ? `${task}\n\nContext:\n${context}` : task;
      if (message.length > MAX_MESSAGE_CHARS) return { content: [{ type: 'text' as const, text: `task and context: together at most ${MAX_MESSAGE_CHARS} characters` }], isError: true };
      return askAgent(deps, caller, agent_id, { message, ...rest }, extra, options);
    },
  );
}

/** What `delegate_agent` takes: the design's delegation tool, an agent named in the call. */
export const delegateInputSchema = z.strictObject({
  agent_id: z.string().min(1).max(128).describe('The agent to hand the task to, e.g. "cereal" (get_agent_info lists them).'),
  task: z.string().trim().min(1, 'must not be empty').max(MAX_MESSAGE_CHARS, `must be at most ${MAX_MESSAGE_CHARS} characters`).describe('What the agent should find out or do, and what its answer should contain.'),
  context: z.string().max(MAX_MESSAGE_CHARS).optional().describe('Facts the agent needs: file paths, findings so far.'),
  project_id: askInputSchema.shape.project_id,
  session_id: askInputSchema.shape.session_id,
});

type ToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** One question to an agent as the caller: the chat route's own path (startChat, then the run's events), answered as a tool result. */
async function askAgent(deps: ChatDeps, caller: AuthUser, agentId: string, input: z.infer<typeof askInputSchema>, extra: ToolExtra, options: AskOptions) {
  const token = extra._meta?.progressToken;
  const progress = token === undefined ? undefined : progressReporter((n) => extra.sendNotification(n), token);
  let run: ChatRun;
  try {
    // A project the caller has no role in is refused before any model call, as the project API answers it (one that does not
    // exist); a project nobody holds yet is the caller's to start, as in a chat.
    if (input.project_id && (await deps.projects.getProject(input.project_id))) await deps.projectAccess.require(caller, input.project_id, 'viewer');
    run = await startChat(deps, { ...input, agent_id: agentId }, caller, { deadline: options.deadline });
  } catch (error) {
    return refusal(error, deps.secrets);
  }
  const pending: NonNullable<AskOutput['pending']> = [];
  let handedOver = false;
  const watched: ChatRun = {
    ...run,
    async *events() {
      for await (const event of run.events(extra.signal)) {
        if (event.type === 'confirmation_required' && event.run_id === run.runId) pending.push({ tool_call_id: event.id, name: event.name, input: event.input, ...(event.policy ? { policy: event.policy } : {}) });
        if (event.type === 'handover') handedOver = true;
        await progress?.(event);
        yield event;
      }
    },
  };
  const result = await collectRun(watched);
  // The run's records are durable before the answer goes: on Lambda the invocation ends with the response.
  await run.finished;
  const output: AskOutput = {
    session_id: result.session_id,
    run_id: result.run_id,
    status: handedOver ? 'handover' : result.status,
    answer: result.text,
    ...(pending.length ? { pending } : {}),
  };
  const failed = output.status === 'error' || output.status === 'cancelled';
  return {
    content: [{ type: 'text' as const, text: describeOutcome(output, result.error?.message) }],
    structuredContent: output,
    ...(failed ? { isError: true } : {}),
  };
}

/** The answer as a client shows it: the reply, what the run waits for, and where the session is. */
function describeOutcome(output: AskOutput, error?: string): string {
  const lines = [output.answer || '(no text)'];
  if (output.status === 'awaiting_approval') {
    const calls = (output.pending ?? []).map((p) => `- ${p.name} ${JSON.stringify(p.input)} (call ${p.tool_call_id}${p.policy ? `; ${p.policy}` : ''})`);
    lines.push(
      `The run waits for a person to approve ${calls.length === 1 ? 'this call' : 'these calls'}:`,
      ...calls,
      `An editor of session ${output.session_id} decides in the console or with POST /api/v2/sessions/${output.session_id}/approvals/<call id>; the run then carries on by itself.`,
    );
  } else if (output.status === 'handover') {
    lines.push(`The run continues in the background; follow it in session ${output.session_id}.`);
  } else if (output.status !== 'completed') {
    lines.push(`The run ended: ${output.status}${error ? ` (${error})` : ''}.`);
  }
  lines.push(`session_id: ${output.session_id}`);
  return lines.join('\n');
}

/** A message the caller may not send (no such session, too weak a role, a busy session) as an error result naming the field. */
function refusal(error: unknown, secrets: readonly string[] = []) {
  if (!ZeroError.isInstance(error)) {
    log.error('mcp ask failed', { error: redact(errorText(error), secrets) });
    return { content: [{ type: 'text' as const, text: 'Zero could not start the run (internal error).' }], isError: true };
  }
  const field = typeof error.details.field === 'string' && !error.message.startsWith(`${error.details.field}:`) ? `${error.details.field}: ` : '';
  return { content: [{ type: 'text' as const, text: `${field}${error.message} (${error.code})` }], isError: true };
}

/**
 * Turns a run's events into MCP progress notifications: one when it starts,
 * for each tool call and result, a delegation, a wait, and the first text of
 * each step. Sending must not stop the run: a client that left is ignored.
 */
function progressReporter(notify: Notify, progressToken: string | number) {
  let progress = 0;
  let writing = false;
  const send = (message: string) => {
    progress += 1;
    return notify({ method: 'notifications/progress', params: { progressToken, progress, message } }).catch(() => undefined);
  };
  return (event: IdentifiedEvent): Promise<unknown> | undefined => {
    const wasWriting = writing;
    writing = event.type === 'text';
    switch (event.type) {
      case 'start':
        return send(`${event.resumed ? 'resumed' : 'started'} ${event.agent_id} in session ${event.session_id}`);
      case 'text':
        return wasWriting ? undefined : send('writing');
      case 'tool_call':
        return send(`calling ${event.name}`);
      case 'tool_result':
        return send(`${event.name} ${event.is_error ? 'failed' : 'answered'}`);
      case 'agent_switch':
        return event.reason === 'delegate' ? send(`handed to ${event.to}`) : undefined;
      case 'confirmation_required':
        return send(`${event.name} waits for approval`);
      case 'handover':
        return send('continues in the background');
      case 'done':
        return send(`done: ${event.status}`);
      default:
        return undefined;
    }
  };
}
