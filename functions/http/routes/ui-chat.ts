import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import * as z from 'zod';
import {
  MAX_MESSAGE_CHARS,
  ZeroError,
  activeRunStart,
  chatRequestSchema,
  followRun,
  invalidField,
  invalidRequest,
  requireAccess,
  openSession,
  startChat,
  titleFrom,
  tooLarge,
  type ChatRequest,
  type Runtime,
  type User,
} from '@zero/core';
import { deadlineOf } from '../deadline';
import type { AppDeps, Env } from '../env';
import { streamUIMessages } from '../ui-message-stream';
import { readJson } from '../validate';

/**
 * `useChat` sends the whole conversation on every request, so its body grows
 * with the chat; Zero reads only the last message but must accept the rest.
 * (Lambda function URLs cap a request at 6 MB.)
 */
export const MAX_UI_CHAT_BODY_BYTES = 5 * 1_048_576;

/** A chat id doubles as the Zero session id: URL-safe and long enough not to be guessed by accident. */
export const chatIdSchema = z
  .string()
  .min(8, 'must be at least 8 characters')
  .max(128)
  .regex(/^[A-Za-z0-9_-]+$/, 'must contain only letters, digits, "_" or "-"');

const chatOptions = chatRequestSchema.pick({ agent_id: true, project_id: true, voice_mode: true, model: true, strategy: true });

/** The body of the AI SDK's default chat transport, plus Zero's options as extra body fields. */
export const uiChatRequestSchema = z.strictObject({
  id: chatIdSchema,
  messages: z.array(z.looseObject({ role: z.string() })).min(1, 'must hold at least the new user message'),
  trigger: z.enum(['submit-message', 'regenerate-message']),
  messageId: z.string().max(200).optional(),
  ...chatOptions.shape,
});

/** The one message Zero takes from the client: the last, a user message with text. */
const lastUserMessageSchema = z.looseObject({
  role: z.literal('user', 'the last message must be the user\'s new message'),
  parts: z.array(z.looseObject({ type: z.string(), text: z.unknown().optional() })),
});

function newMessageText(messages: unknown[]): string {
  const index = messages.length - 1;
  const parsed = lastUserMessageSchema.safeParse(messages[index]);
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
    bodyLimit({
      maxSize: MAX_UI_CHAT_BODY_BYTES,
      onError: () => {
        throw tooLarge(`request body over ${MAX_UI_CHAT_BODY_BYTES} bytes; send only the last message (prepareSendMessagesRequest)`);
      },
    }),
    async (c) => {
      const parsed = uiChatRequestSchema.safeParse(await readJson(c));
      if (!parsed.success) throw invalidRequest(parsed.error);
      // `messageId` names the message to answer; Zero always answers the new one.
      const { id, messages, trigger, messageId: _messageId, ...options } = parsed.data;
      if (trigger === 'regenerate-message') {
        throw new ZeroError('invalid_request', "Zero's session history is append-only, so a message cannot be regenerated; send a new message instead", {
          field: 'trigger',
        });
      }
      const message = newMessageText(messages);
      const user = c.get('user');
      await ensureSession(deps, id, options, user, message);
      const run = await startChat(deps, { session_id: id, message, ...options }, user, { deadline: deadlineOf(c) });
      return streamUIMessages(c, (signal) => run.events(signal), { finished: run.finished });
    },
  );

  app.get('/ui/chat/:id/stream', async (c) => {
    const id = chatIdSchema.safeParse(c.req.param('id'));
    if (!id.success) throw invalidField('id', id.error.issues[0]?.message ?? 'invalid');
    await requireAccess(deps.sessions, id.data, c.get('user'), 'viewer');
    const active = await activeRunStart(deps, id.data);
    if (!active) return c.body(null, 204);
    return streamUIMessages(c, (signal) => followRun(deps, id.data, active.runId, active.after, signal));
  });

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
