import { Hono } from 'hono';
import * as z from 'zod';
import { ZeroError, conflict, invalidField, tooLarge } from '@zero/agent/errors';
import { activeRunStart, followRun } from '@zero/runtime/sessions/active-run';
import { eventsWithoutThinking, hidesThinking } from '@zero/runtime/sessions/thinking-visibility';
import { approvalEvent } from '@zero/runtime/sessions/approvals';
import { decideApprovals } from '@zero/runtime/sessions/decide-approval';
import { requireAccess } from '@zero/runtime/sessions/access';
import { refuseMemberAnswer, selfHostedEnvironmentOf } from '@zero/runtime/sessions/session-environment';
import { openSession, titleFrom } from '@zero/runtime/sessions/open-session';
import { editMessage } from '@zero/runtime/sessions/edit-message';
import { startChat } from '@zero/runtime/sessions/start-chat';
import { truncate } from '@zero/agent/tools/registry';
import type { Runtime } from '../../create-runtime';
import type { User } from '@zero/runtime/auth/roles';
import {
  MAX_MESSAGE_CHARS,
  MAX_UI_CHAT_BODY_BYTES,
  MAX_BODY_WITH_ATTACHMENTS_BYTES,
  ATTACHMENTS_BODY_HINT,
  approvalRequestSchema,
  chatIdSchema,
  streamQuerySchema,
  toolResultRequestSchema,
  uiChatRequestSchema,
  uiUserMessageSchema,
  uiMessageChunkSchema,
  type AttachmentParam,
  type ChatRequest,
} from '@zero/agent/wire';
import { describe, json, param, query } from '../declare';
import type { AppDeps, Env } from '../env';


// The mapping to the UI message stream loads with the first useChat request: nothing of it at cold start.
const uiMessageStream = () => import('../ui-message-stream');
/**
 * An answer the client left on a tool part of the last assistant message: a decision
 * (`addToolApprovalResponse`) or a client tool's output (`addToolOutput` / `addToolResult`).
 */
type ChatAnswer = { toolCallId: string } & ({ kind: 'decision'; approved: boolean; reason?: string } | { kind: 'result'; content: string; isError: boolean });

type ToolPartSeen = { state?: unknown; toolCallId?: unknown; output?: unknown; errorText?: unknown; approval?: { id?: unknown; approved?: unknown; reason?: unknown } };

/**
 * What the client answered: after `addToolApprovalResponse` the AI SDK sends the assistant message
 * back with its parts `approval-responded` (the approval id is the tool call's id); after a client
 * tool's output, with its part `output-available` (or `output-error`). Parts of calls that do not wait
 * (the server's tools, answered before) are passed over when the decisions are recorded.
 * None: the request carries a new message.
 */
function chatAnswers(messages: unknown[]): ChatAnswer[] {
  const last = messages.at(-1) as { role?: unknown; parts?: unknown } | undefined;
  if (last?.role !== 'assistant' || !Array.isArray(last.parts)) return [];
  const answers: ChatAnswer[] = [];
  for (const [index, part] of (last.parts as ToolPartSeen[]).entries()) {
    if (typeof part?.toolCallId === 'string' && (part.state === 'output-available' || part.state === 'output-error')) {
      const content = part.state === 'output-error' ? String(part.errorText ?? 'the client tool failed') : typeof part.output === 'string' ? part.output : JSON.stringify(part.output ?? null);
      const bounded = toolResultRequestSchema.shape.content.safeParse(content);
      if (!bounded.success) throw invalidField(`messages.${messages.length - 1}.parts.${index}.output`, bounded.error.issues[0]?.message ?? 'invalid');
      answers.push({ kind: 'result', toolCallId: part.toolCallId, content, isError: part.state === 'output-error' });
      continue;
    }
    if (part?.state !== 'approval-responded' || typeof part.approval?.approved !== 'boolean') continue;
    const id = typeof part.approval.id === 'string' ? part.approval.id : part.toolCallId;
    if (typeof id !== 'string') continue;
    // The reason is the decision's message, bounded as on the approvals route.
    const reason = approvalRequestSchema.shape.message.safeParse(part.approval.reason ?? undefined);
    if (!reason.success) throw invalidField(`messages.${messages.length - 1}.parts.${index}.approval.reason`, reason.error.issues[0]?.message ?? 'invalid');
    answers.push({ kind: 'decision', toolCallId: id, approved: part.approval.approved, ...(reason.data?.trim() ? { reason: reason.data.trim() } : {}) });
  }
  return answers;
}

/**
 * The new user message: its text parts, and its file parts (the AI SDK's `{ type: 'file', mediaType,
 * url, filename }`, the url a `data:` URL) as attachments, checked like any (see storeAttachments).
 */
function newMessage(messages: unknown[]): { message: string; attachments?: AttachmentParam[] } {
  const index = messages.length - 1;
  const parsed = uiUserMessageSchema.safeParse(messages[index]);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = ['messages', index, ...(issue?.path ?? [])].join('.');
    throw invalidField(field, issue?.message ?? 'invalid');
  }
  const text = parsed.data.parts
    .filter((p) => p.type === 'text' && typeof p.text === 'string')
    .map((p) => p.text as string)
    .join('\n')
    .trim();
  const attachments = parsed.data.parts.flatMap((p, j): AttachmentParam[] => {
    if (p.type !== 'file') return [];
    const file = filePart.safeParse(p);
    if (!file.success) throw invalidField(`messages.${index}.parts.${j}.${file.error.issues[0]?.path.join('.') ?? ''}`, file.error.issues[0]?.message ?? 'invalid');
    return [{ media_type: file.data.mediaType, data: file.data.url, ...(file.data.filename ? { filename: file.data.filename } : {}) }];
  });
  if (!text && !attachments.length) throw invalidField(`messages.${index}.parts`, 'the new message has no text and no files');
  if (text.length > MAX_MESSAGE_CHARS) {
    throw tooLarge(`message is ${text.length} characters; the limit is ${MAX_MESSAGE_CHARS}`, `messages.${index}.parts`);
  }
  return { message: text || '(attachments)', ...(attachments.length ? { attachments } : {}) };
}

/**
 * A `sendMessage` that replaces an earlier message (`useChat`'s edit: `sendMessage({ text, messageId })`):
 * the request's last message is a user message with that id. Its id names the run it started,
 * `<run id>:user` (`userMessageId`; what `historyToUIMessages` gives a stored message). None: a new message.
 */
function editedMessage(messages: unknown[], trigger: string, messageId: string | undefined): { runId: string; message: ReturnType<typeof newMessage> } | undefined {
  const last = messages.at(-1) as { id?: unknown; role?: unknown } | undefined;
  if (trigger !== 'submit-message' || messageId === undefined || last?.role !== 'user' || last.id !== messageId) return undefined;
  const runId = /^(.+):user$/.exec(messageId)?.[1];
  if (!runId) throw invalidField('messageId', `"${messageId}" is not a message id Zero gave (\`<run id>:user\`, as historyToUIMessages names a stored message); a message sent in this page is named so once its answer started`);
  return { runId, message: newMessage(messages) };
}

/** A `useChat` file part: the bytes as a data URL (what `sendMessage({ files })` sends). */
const filePart = z.looseObject({
  mediaType: z.string().max(100),
  url: z.string().startsWith('data:', 'must be a data: URL (Zero fetches no URL for a message)'),
  filename: z.string().max(255).optional(),
});

/**
 * `POST /ui/chat`: the endpoint for the AI SDK's `useChat`, answered with the
 * UI message stream; `GET /ui/chat/:id/stream`: what `useChat({ resume: true })`
 * calls to re-attach to the session's active run (204 when none is active).
 * The session's history stays in DynamoDB: only the new message is read.
 */
export function uiChatRoutes(deps: AppDeps) {
  const app = new Hono<Env>();

  app.post(
    '/ui/chat',
    describe({ summary: "Send a message from the AI SDK's useChat: the run streams as the UI message stream", responses: {}, events: uiMessageChunkSchema }),
    json(uiChatRequestSchema, { maxBytes: Math.max(MAX_UI_CHAT_BODY_BYTES, MAX_BODY_WITH_ATTACHMENTS_BYTES), hint: `; send only the last message (prepareSendMessagesRequest)${ATTACHMENTS_BODY_HINT}` }),
    async (c) => {
      const { id, messages, trigger, messageId, ...options } = c.req.valid('json');
      const user = c.get('user');
      const edited = editedMessage(messages, trigger, messageId);
      if (trigger === 'regenerate-message' || edited) {
        // The answer to the session's last message again, or an edited message answered: a branch (see
        // docs/sessions-steering.md); the earlier one stays readable.
        if (!(await deps.sessions.getSession(id))) throw new ZeroError('invalid_request', `chat "${id}" has no message to ${edited ? 'edit' : 'regenerate an answer to'}`, { field: edited ? 'messageId' : 'trigger' });
        const asked = { ...(options.model ? { model: options.model } : {}), ...(options.thinking !== undefined ? { thinking: options.thinking } : {}) };
        const target = edited ? { runId: edited.runId, text: edited.message.message, with: { ...asked, ...(edited.message.attachments ? { attachments: edited.message.attachments } : {}) } } : { with: asked };
        const run = await editMessage(deps, user, id, target, { deadline: c.get('deadline') });
        c.set('sessionId', id);
        c.set('runId', run.runId);
        return (await uiMessageStream()).streamUIMessages(c, (signal) => run.events(signal), { finished: run.finished });
      }
      const answers = chatAnswers(messages);
      if (answers.length) {
        const decided = await decideFromChat(deps, id, user, answers);
        // Calls still waiting for others' answers: the run stays put, and the stream ends with the decisions.
        if (decided.pending.length) return (await uiMessageStream()).streamUIMessages(c, () => replay(decided.recorded.map(approvalEvent)));
        return (await uiMessageStream()).streamUIMessages(c, (signal) => followRun(deps, id, decided.runId, decided.after, signal));
      }
      const { message, attachments } = newMessage(messages);
      const { client_tools: _clientTools, ...settings } = options;
      await ensureSession(deps, id, settings, user, message);
      const run = await startChat(deps, { session_id: id, message, ...(attachments ? { attachments } : {}), ...options }, user, { deadline: c.get('deadline') });
      c.set('sessionId', id);
      c.set('runId', run.runId);
      return (await uiMessageStream()).streamUIMessages(c, (signal) => run.events(signal), { finished: run.finished });
    },
  );

  app.get(
    '/ui/chat/:id/stream',
    describe({ summary: "Re-attach `useChat({ resume: true })` to the session's active run (204 when none is active)", responses: { 204: null }, events: uiMessageChunkSchema }),
    param(z.object({ id: chatIdSchema })),
    query(streamQuerySchema),
    async (c) => {
      const { id } = c.req.valid('param');
      const { member } = await requireAccess(deps.sessions, id, c.get('user'), 'viewer');
      const active = await activeRunStart(deps, id);
      if (!active) return c.body(null, 204);
      const hide = hidesThinking(deps, member.role);
      return (await uiMessageStream()).streamUIMessages(c, (signal) => {
        const events = followRun(deps, id, active.runId, active.after, signal, active.waits);
        return hide ? eventsWithoutThinking(events) : events;
      });
    },
  );

  return app;
}

/**
 * Records the client's answers as the same decisions as `POST
 * /sessions/:id/approvals/:tool_call_id` (editors and owners; a call that
 * does not wait is a 409) and returns where the run's events go on: the
 * decisions' `approval` events, then (once no call waits) the resumed run
 * until its next `done`.
 */
async function decideFromChat(deps: AppDeps, sessionId: string, user: User, answers: ChatAnswer[]) {
  await requireAccess(deps.sessions, sessionId, user, 'editor');
  const by = { id: user.id, ...(user.name ? { name: user.name } : {}) };
  const after = { seq: await deps.sessions.lastEventSeq(sessionId), index: Number.MAX_SAFE_INTEGER };
  // A self-hosted environment's calls are its worker's to answer, whatever the door.
  const environment = answers.some((a) => a.kind === 'result') ? await selfHostedEnvironmentOf(deps, sessionId) : undefined;
  const { recorded, pending } = await decideApprovals(deps, sessionId, (waiting) => {
    for (const call of waiting?.pending ?? []) if (call.client_tool && answers.some((a) => a.kind === 'result' && a.toolCallId === call.tool_use_id)) refuseMemberAnswer(environment, call);
    // A decision answers a call that waits for one; an output, a client tool's call.
    const waitsFor = new Map(waiting?.pending.map((p) => [p.tool_use_id, p.client_tool ? 'result' : 'decision']));
    // Answers another member already gave are left as they are; none left waiting is the stale-decision 409.
    const open = answers.filter((a) => waitsFor.get(a.toolCallId) === a.kind);
    if (!open.length) {
      const first = answers.find((a) => a.kind === 'decision') ?? answers[0]!;
      throw conflict(`tool call "${first.toolCallId}" does not wait for ${first.kind === 'result' ? "a client's result" : 'a decision'}`, { tool_call_id: first.toolCallId });
    }
    return open.map((a) =>
      a.kind === 'decision'
        ? { toolCallId: a.toolCallId, decision: a.approved ? ('allow' as const) : ('deny' as const), ...(a.reason ? { message: a.reason } : {}), by }
        : { toolCallId: a.toolCallId, decision: 'allow' as const, result: boundedResult(deps, a.content, a.isError), by },
    );
  });
  return { runId: recorded[0]!.run_id, after, recorded, pending };
}

/** A client tool's output bounded like any tool's, as the tool-results route bounds it. */
function boundedResult(deps: AppDeps, content: string, isError: boolean) {
  const result = truncate({ content, is_error: isError }, deps.limits.maxToolOutputChars);
  return { content: result.content, ...(result.is_error ? { is_error: true } : {}), ...(result.truncated ? { truncated: true } : {}) };
}

async function* replay<T>(items: readonly T[]): AsyncGenerator<T> {
  yield* items;
}

/** Creates the session a new chat id names, owned by the caller; an existing one is checked by `startChat`. */
async function ensureSession(deps: Runtime, sessionId: string, options: Omit<ChatRequest, 'message'>, user: User, message: string) {
  if (await deps.sessions.getSession(sessionId)) return;
  try {
    await openSession(deps, user, { ...options, session_id: sessionId, title: titleFrom(message) });
  } catch (error) {
    // Two first messages raced to create it; the access check that follows decides.
    if (!(ZeroError.isInstance(error) && error.code === 'conflict')) throw error;
  }
}
