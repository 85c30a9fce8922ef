import type { Context } from 'hono';
import * as z from 'zod';
import { invalidField, tooLarge } from '@zero/agent/errors';
import { queueMessage } from '@zero/runtime/sessions/start-chat';
import { decodeBase64, storeAttachments, type ReceivedAttachment } from '@zero/runtime/files/attachments';
import { userMessageContent } from '@zero/integrations/managed';
import { type ManagedSessionRecord } from '@zero/runtime/store/session-record';
import { MAX_MESSAGE_CHARS } from '@zero/agent/wire';
import type { Env } from '../env';
import type { V1Deps } from './deps';

const source = z.looseObject({ type: z.string(), data: z.unknown().optional(), media_type: z.unknown().optional(), file_id: z.unknown().optional() });

/** A `user.message` event as sent: text, image and document blocks (`BetaManagedAgentsUserMessageEventParams`). */
export const userMessageParams = z.strictObject({
  type: z.literal('user.message'),
  content: z
    .array(z.looseObject({ type: z.string(), text: z.unknown().optional(), source: source.optional(), title: z.string().max(255).nullish() }))
    .min(1, 'must hold at least one block'),
});
export type UserMessageParams = z.infer<typeof userMessageParams>;

type Block = UserMessageParams['content'][number];

/**
 * An image or document block's bytes, or its Files API file: base64 and `file` sources are taken, a
 * plain-text document becomes text; a URL source is refused (Zero fetches nothing for a message).
 */
function attachmentOf(block: Block, field: string): ReceivedAttachment | string {
  const src = block.source;
  if (!src) throw invalidField(`${field}.source`, 'is required');
  if (block.type === 'document' && src.type === 'text' && typeof src.data === 'string') return src.data;
  if (src.type === 'base64' && typeof src.data === 'string') return { bytes: decodeBase64(src.data, `${field}.source.data`), ...(block.title ? { filename: block.title } : {}) };
  if (src.type === 'file' && typeof src.file_id === 'string') return { file_id: src.file_id };
  if (src.type === 'url') throw invalidField(`${field}.source`, 'url sources are not fetched: send the bytes (base64) or upload the file (POST /v1/files) and send its file_id');
  throw invalidField(`${field}.source`, `must be a base64 or file source${block.type === 'document' ? ', or a text source' : ''}`);
}

/** The event's content as Zero takes it: its text, and its images and documents checked and stored (see storeAttachments). */
async function contentOf(deps: V1Deps, c: Context<Env>, sessionId: string, event: UserMessageParams, field: string) {
  const texts: string[] = [];
  const received: ReceivedAttachment[] = [];
  const fieldOf: string[] = [];
  for (const [j, block] of event.content.entries()) {
    const at = `${field}.content.${j}`;
    if (block.type === 'text' && typeof block.text === 'string') texts.push(block.text);
    else if (block.type === 'image' || block.type === 'document') {
      const got = attachmentOf(block, at);
      if (typeof got === 'string') texts.push(got);
      else {
        received.push(got);
        fieldOf.push(at);
      }
    } else throw invalidField(at, `"${block.type}" blocks are not supported; send text, image or document blocks`);
  }
  const message = texts.join('\n\n');
  if (!message.trim() && !received.length) throw invalidField(`${field}.content`, 'must not be empty');
  if (message.length > MAX_MESSAGE_CHARS) throw tooLarge(`the message is ${message.length} characters; the limit is ${MAX_MESSAGE_CHARS}`, `${field}.content`);
  const attachments = received.length ? await storeAttachments(deps.artifacts, c.get('user'), received, `${field}.content`, sessionId) : [];
  return { text: message.trim() ? message : '(attachments)', attachments };
}

/**
 * Sends a `user.message` to the session as a Zero message for a background run, with the session's
 * custom tools as client tools (a self-hosted environment's tools are added by the run itself). Returns once the message is durable, without waiting for the run,
 * which the stream follows; on Lambda the run goes on in the worker, not in this request.
 */
export async function sendUserMessage(deps: V1Deps, c: Context<Env>, sessionId: string, record: ManagedSessionRecord | undefined, event: UserMessageParams, field: string) {
  const { text, attachments } = await contentOf(deps, c, sessionId, event, field);
  const user = c.get('user');
  // Custom tools are the client's. A self-hosted environment's tools, its worker's, are added to every run of the session, whatever the door (sessions/session-environment.ts).
  const clientTools = record?.custom_tools ?? [];
  const runId = await queueMessage(deps, sessionId, {
    text,
    ...(attachments.length ? { attachments } : {}),
    author: { id: user.id, ...(user.name ? { name: user.name } : {}) },
    ...(clientTools.length ? { client_tools: clientTools } : {}),
  });
  return { id: `sevt_${runId}`, type: 'user.message' as const, content: userMessageContent(text, attachments), processed_at: new Date().toISOString() };
}
