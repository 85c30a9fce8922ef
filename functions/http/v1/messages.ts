import type { Context } from 'hono';
import * as z from 'zod';
import { invalidField, tooLarge } from '@zero/agent/errors';
import { queueMessage } from '@zero/runtime/sessions/start-chat';
import type { ManagedSessionRecord } from '@zero/integrations/managed';
import { MAX_MESSAGE_CHARS } from '@zero/agent/wire';
import type { Env } from '../env';
import type { V1Deps } from './deps';

/** A `user.message` event as sent: content blocks; Zero takes text (images and documents are refused by name). */
export const userMessageParams = z.strictObject({
  type: z.literal('user.message'),
  content: z.array(z.looseObject({ type: z.string(), text: z.unknown().optional() })).min(1, 'must hold at least one block'),
});
export type UserMessageParams = z.infer<typeof userMessageParams>;

/**
 * Sends a `user.message` to the session as a Zero message for a background run, with the session's
 * custom tools as client tools (a self-hosted environment's tools are added by the run itself). Returns once the message is durable, without waiting for the run,
 * which the stream follows; on Lambda the run goes on in the worker, not in this request.
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
  // Custom tools are the client's. A self-hosted environment's tools, its worker's, are added to every run of the session, whatever the door (sessions/session-environment.ts).
  const clientTools = record?.custom_tools ?? [];
  const runId = await queueMessage(deps, sessionId, {
    text: message,
    author: { id: user.id, ...(user.name ? { name: user.name } : {}) },
    ...(clientTools.length ? { client_tools: clientTools } : {}),
  });
  return { id: `sevt_${runId}`, type: 'user.message' as const, content: texts.map((text) => ({ type: 'text' as const, text })), processed_at: new Date().toISOString() };
}
