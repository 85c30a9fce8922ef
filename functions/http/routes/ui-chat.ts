import { Hono } from 'hono';
import * as z from 'zod';
import {
  ZeroError,
  followSession,
  requireAccess,
  openSession,
  startChat,
  titleFrom,
  type EventPosition,
  type IdentifiedEvent,
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
    throw new ZeroError('invalid_request', `${field}: ${issue?.message ?? 'invalid'}`, 400, { field });
  }
  const text = parsed.data.parts
    .filter((p) => p.type === 'text' && typeof p.text === 'string')
    .map((p) => p.text as string)
    .join('\n')
    .trim();
  if (!text) throw new ZeroError('invalid_request', `messages.${index}.parts: the new message has no text (Zero takes text only)`, 400, { field: `messages.${index}.parts` });
  if (text.length > MAX_MESSAGE_CHARS) {
    throw new ZeroError('payload_too_large', `message is ${text.length} characters; the limit is ${MAX_MESSAGE_CHARS}`, 413, { field: `messages.${index}.parts` });
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
        throw new ZeroError('invalid_request', "Zero's session history is append-only, so a message cannot be regenerated; send a new message instead", 400, {
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
      return streamUIMessages(c, (signal) => runEvents(deps, id, active.runId, active.after, signal));
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

/**
 * Where the session's active run begins in the event log. Runs are written
 * as batches tagged with their run id, so the log is read backwards in
 * widening windows until the run's first batch: the cost follows the run's
 * length, not the session's. Undefined when no run is active (or it has
 * already ended).
 */
async function activeRunStart(deps: Runtime, sessionId: string): Promise<{ runId: string; after: EventPosition } | undefined> {
  const lease = await deps.leases.inspect(sessionId);
  if (!lease?.active || !lease.run_id) return undefined;
  const runId = lease.run_id;
  const last = await deps.sessions.lastEventSeq(sessionId);
  let first = last + 1;
  for (let window = 8; ; window *= 4) {
    const from = Math.max(0, last - window);
    const batches = await deps.sessions.readEvents(sessionId, from);
    const mine = batches.filter((b) => b.run_id === runId);
    if (mine.some((b) => b.events.some((e) => e.type === 'done'))) return undefined;
    if (mine[0]) first = mine[0].seq;
    // Runs of a session follow one another: a batch of another run in the window lies before this run's start.
    if (from === 0 || batches.some((b) => b.run_id !== runId)) break;
  }
  return { runId, after: { seq: first - 1, index: Number.MAX_SAFE_INTEGER } };
}

/** One run's events from a position, ending with its `done`. */
async function* runEvents(deps: Runtime, sessionId: string, runId: string, after: EventPosition, signal: AbortSignal): AsyncGenerator<IdentifiedEvent> {
  for await (const event of followSession(deps, sessionId, { after, signal })) {
    if (!('run_id' in event) || event.run_id !== runId) continue;
    yield event;
    if (event.type === 'done') return;
  }
}
