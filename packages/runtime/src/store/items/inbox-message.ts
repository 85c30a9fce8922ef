import * as z from 'zod';
import { attachmentRefSchema, complexityLevelSchema, outcomeSpecSchema, systemPromptOverrideSchema, voiceModeSchema } from '@zero/agent/wire';
import { keys } from '../keys';
import { storedItem } from '../stored-item';
import { authorSchema } from './fields';

/** `SESSION#<id>` / `INBOX#<n>`, n in arrival order (the counter `inbox_seq` of the session's meta item). */
export const inboxMessageKey = (sessionId: string, messageId: number) => ({ pk: keys.session(sessionId), sk: keys.inbox(messageId) });

/** The whole inbox, oldest first: a sort-key range. */
export const inboxRange = (): [string, string] => [keys.inbox(0), keys.inboxEnd];

/** A message accepted for a session but not yet answered. */
export const inboxMessageSchema = z.object({
  message_id: z.number().int().positive(),
  run_id: z.string(),
  text: z.string(),
  /** Images and PDFs sent with the message: pointers to blobs (see the `user_message` record). */
  attachments: z.array(attachmentRefSchema).optional(),
  author: authorSchema.optional(),
  agent_id: z.string().optional(),
  project_id: z.string().optional(),
  voice_mode: voiceModeSchema.optional(),
  model: z.string().optional(),
  /** Tools the sender's client runs (see the `user_message` record). */
  /** The message's own thinking budget (0: off), over the agent's. */
  thinking_budget: z.number().int().nonnegative().optional(),
  client_tools: z.array(z.object({ name: z.string(), description: z.string(), input_schema: z.looseObject({ type: z.literal('object') }), replaces: z.string().optional() })).optional(),
  /** The steps of the plan the message was made from (see the `user_message` record). */
  plan_steps: z.array(z.string()).optional(),
  /** The message's own cap on the tool loop's iterations (see the `user_message` record). */
  max_tool_iterations: z.number().int().positive().optional(),
  /** The message's complexity and required tools (see the `user_message` record). */
  complexity: complexityLevelSchema.optional(),
  tools_required: z.array(z.string()).optional(),
  /** The outcome the message works toward (see the `user_message` record). */
  outcome: outcomeSpecSchema.optional(),
  /** The message's change to the agent's system prompt (see the `user_message` record). */
  system_prompt: systemPromptOverrideSchema.optional(),
  /** An edit or a regenerate: the `user_message` record's `branch_from`. */
  branch_from: z.number().int().nonnegative().optional(),
  at: z.string(),
});
export type InboxMessage = z.infer<typeof inboxMessageSchema>;

/** Versions: 0, written without `v` (before issue 13); 1, the same fields with `v: 1`. */
export const inboxMessageItem = storedItem<InboxMessage>('inbox message', { 0: inboxMessageSchema, 1: inboxMessageSchema });
