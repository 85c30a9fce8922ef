import type { Context } from 'hono';
import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import { invalidField, tooLarge } from '@zero/agent/errors';
import { queueMessage } from '@zero/runtime/sessions/start-chat';
import type { ManagedSessionRecord } from '@zero/runtime/store/session-record';
import { DEFAULT_OUTCOME_ITERATIONS, MAX_MESSAGE_CHARS, MAX_OUTCOME_ITERATIONS, MAX_RUBRIC_CHARS, type OutcomeSpec } from '@zero/agent/wire';
import type { Env } from '../env';
import type { V1Deps } from './deps';

/** A `user.define_outcome` event as sent (`BetaManagedAgentsUserDefineOutcomeEventParams`): a text rubric; a file rubric is refused by name. */
export const defineOutcomeParams = z.strictObject({
  type: z.literal('user.define_outcome'),
  description: z.string().trim().min(1, 'must not be empty'),
  rubric: z.discriminatedUnion('type', [
    z.strictObject({ type: z.literal('text'), content: z.string().trim().min(1, 'must not be empty').max(MAX_RUBRIC_CHARS) }),
    z.strictObject({ type: z.literal('file'), file_id: z.string().min(1).max(200) }),
  ]),
  max_iterations: z.number().int().min(1).max(MAX_OUTCOME_ITERATIONS).nullish(),
});
export type DefineOutcomeParams = z.infer<typeof defineOutcomeParams>;

/**
 * Defines an outcome: its description goes to the session as a message the agent begins work on, carrying
 * the rubric; after each answer a grader scores it (see `@zero/runtime/outcomes`). Returns the echo, with
 * the `outc_` id the `span.outcome_evaluation_*` events reference.
 */
export async function defineOutcome(deps: V1Deps, c: Context<Env>, sessionId: string, record: ManagedSessionRecord | undefined, event: DefineOutcomeParams, field: string) {
  if (event.rubric.type === 'file') throw invalidField(`${field}.rubric`, 'file rubrics are not supported here; send the rubric as text ({"type": "text", "content": "…"})');
  if (event.description.length > MAX_MESSAGE_CHARS) throw tooLarge(`the description is ${event.description.length} characters; the limit is ${MAX_MESSAGE_CHARS}`, `${field}.description`);
  const user = c.get('user');
  const outcome: OutcomeSpec = {
    outcome_id: `outc_${randomUUID().replaceAll('-', '')}`,
    description: event.description,
    rubric: event.rubric.content,
    max_iterations: event.max_iterations ?? DEFAULT_OUTCOME_ITERATIONS,
    iteration: 0,
  };
  const clientTools = record?.custom_tools ?? [];
  await queueMessage(deps, sessionId, {
    text: event.description,
    author: { id: user.id, ...(user.name ? { name: user.name } : {}) },
    ...(clientTools.length ? { client_tools: clientTools } : {}),
    outcome,
  });
  return {
    id: `sevt_${outcome.outcome_id}`,
    type: 'user.define_outcome' as const,
    outcome_id: outcome.outcome_id,
    description: outcome.description,
    rubric: { type: 'text' as const, content: outcome.rubric },
    max_iterations: outcome.max_iterations,
    processed_at: new Date().toISOString(),
  };
}
