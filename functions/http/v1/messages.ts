import type { Context } from 'hono';
import * as z from 'zod';
import { randomUUID } from 'node:crypto';
import { invalidField, messageWhileWaiting, tooLarge } from '@zero/core';
import type { ManagedSessionRecord } from '@zero/core/managed';
import { MAX_MESSAGE_CHARS } from '@zero/core/wire';
import type { Env } from '../env';
import type { V1Deps } from './deps';

/** A `user.message` event as sent: content blocks; Zero takes text (images and documents are refused by name). */
export const userMessageParams = z.strictObject({
  type: z.literal('user.message'),
  content: z.array(z.looseObject({ type: z.string(), text: z.unknown().optional() })).min(1, 'must hold at least one block'),
});
export type UserMessageParams = z.infer<typeof userMessageParams>;

/**
 * Sends a `user.message` to the session as a Zero message, with the session's custom tools as
 * client tools: into the session's inbox, and the session to the run queue (SQS in AWS, in-process
 * locally), as a webhook's message goes. Returns once the message is durable, without waiting for
 * the run, which the stream follows; on Lambda the run goes on in the worker, not in this request.
 */
export async function sendUserMessage(deps: V1Deps, c: Context<Env>, sessionId: string, record: ManagedSessionRecord | undefined, event: UserMessageParams, field: string) {
  const texts = event.content.map((block, j) => {
    if (block.type !== 'text' || typeof block.text !== 'string') throw invalidField(`${field}.content.${j}`, `"${block.type}" blocks are not supported; send text`);
    return block.text;
  });
  const message = texts.join('\n\n');
  if (!message.trim()) throw invalidField(`${field}.content`, 'must not be empty');
  if (message.length > MAX_MESSAGE_CHARS) throw tooLarge(`the message is ${message.length} characters; the limit is ${MAX_MESSAGE_CHARS}`, `${field}.content`);
  const user = c.get('user');
  const runId = `run_${randomUUID()}`;
  const at = new Date().toISOString();
  // Calls that waited past the approval time are denied now; a message behind a waiting run waits its turn.
  await messageWhileWaiting(deps, sessionId, 'enqueue');
  await deps.sessions.enqueue(sessionId, {
    run_id: runId,
    text: message,
    author: { id: user.id, ...(user.name ? { name: user.name } : {}) },
    ...(record?.custom_tools.length ? { client_tools: record.custom_tools } : {}),
    at,
  });
  await deps.queue.send({ session_id: sessionId, reason: 'a message through the Managed Agents API' });
  return { id: `sevt_${runId}`, type: 'user.message' as const, content: texts.map((text) => ({ type: 'text' as const, text })), processed_at: at };
}
