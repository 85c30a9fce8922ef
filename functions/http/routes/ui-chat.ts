import { Hono } from 'hono';
import * as z from 'zod';
import {
  ZeroError,
  activeRunStart,
  followRun,
  invalidField,
  requireAccess,
  openSession,
  startChat,
  titleFrom,
  tooLarge,
  type Runtime,
  type User,
} from '@zero/core';
import {
  MAX_MESSAGE_CHARS,
  MAX_UI_CHAT_BODY_BYTES,
  chatIdSchema,
  streamQuerySchema,
  uiChatRequestSchema,
  uiUserMessageSchema,
  uiMessageChunkSchema,
  type ChatRequest,
} from '@zero/core/wire';
import { describe, json, param, query } from '../declare';
import type { AppDeps, Env } from '../env';
import { streamUIMessages } from '../ui-message-stream';

function newMessageText(messages: unknown[]): string {
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
  if (!text) throw invalidField(`messages.${index}.parts`, 'the new message has no text (Zero takes text only)');
  if (text.length > MAX_MESSAGE_CHARS) {
    throw tooLarge(`message is ${text.length} characters; the limit is ${MAX_MESSAGE_CHARS}`, `messages.${index}.parts`);
  }
  return text;
}

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
    json(uiChatRequestSchema, { maxBytes: MAX_UI_CHAT_BODY_BYTES, hint: '; send only the last message (prepareSendMessagesRequest)' }),
    async (c) => {
      // `messageId` names the message to answer; Zero always answers the new one.
      const { id, messages, trigger, messageId: _messageId, ...options } = c.req.valid('json');
      if (trigger === 'regenerate-message') {
        throw new ZeroError('invalid_request', "Zero's session history is append-only, so a message cannot be regenerated; send a new message instead", {
          field: 'trigger',
        });
      }
      const message = newMessageText(messages);
      const user = c.get('user');
      await ensureSession(deps, id, options, user, message);
      const run = await startChat(deps, { session_id: id, message, ...options }, user, { deadline: c.get('deadline') });
      return streamUIMessages(c, (signal) => run.events(signal), { finished: run.finished });
    },
  );

  app.get(
    '/ui/chat/:id/stream',
    describe({ summary: "Re-attach `useChat({ resume: true })` to the session's active run (204 when none is active)", responses: { 204: null }, events: uiMessageChunkSchema }),
    param(z.object({ id: chatIdSchema })),
    query(streamQuerySchema),
    async (c) => {
      const { id } = c.req.valid('param');
      await requireAccess(deps.sessions, id, c.get('user'), 'viewer');
      const active = await activeRunStart(deps, id);
      if (!active) return c.body(null, 204);
      return streamUIMessages(c, (signal) => followRun(deps, id, active.runId, active.after, signal));
    },
  );

  return app;
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
