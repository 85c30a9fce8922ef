import * as z from 'zod';
import { sessionEventSchema } from './managed-agents-schemas';

/**
 * The events of a session's stream beyond those `sessionEventSchema` knows, written from the SDK's types
 * (`@anthropic-ai/sdk/resources/beta/sessions/{events,sessions}`): every field the types mark as required.
 */
const at = { id: z.string(), processed_at: z.string() };

/** `BetaManagedAgentsStartEvent`: opens a preview (only on a stream that asked with `event_deltas`). */
export const startEventSchema = z.strictObject({
  type: z.literal('event_start'),
  event: z.strictObject({ id: z.string(), type: z.enum(['agent.message', 'agent.thinking']) }),
});

/** `BetaManagedAgentsDeltaEvent`: one piece of a previewed `agent.message`. */
export const deltaEventSchema = z.strictObject({
  type: z.literal('event_delta'),
  event_id: z.string(),
  delta: z.strictObject({ type: z.literal('content_delta'), index: z.number().int().optional(), content: z.strictObject({ type: z.literal('text'), text: z.string() }) }),
});

/** `BetaManagedAgentsSessionDeletedEvent`. */
export const sessionDeletedEventSchema = z.strictObject({ type: z.literal('session.deleted'), ...at });

/** `BetaManagedAgentsSessionUpdatedEvent`: only the fields that changed. */
export const sessionUpdatedEventSchema = z.strictObject({
  type: z.literal('session.updated'),
  ...at,
  title: z.string().nullish(),
  metadata: z.record(z.string(), z.string()).optional(),
  agent: z.unknown().nullish(),
  budget: z.unknown().nullish(),
});

/** `BetaManagedAgentsSessionEvent`, as far as Zero sends them: what the list holds. */
export const listedEventSchema = z.discriminatedUnion('type', [...sessionEventSchema.options, sessionUpdatedEventSchema]);
export const listedPageSchema = z.object({ data: z.array(listedEventSchema), next_page: z.string().nullable().optional() });

/** `BetaManagedAgentsStreamSessionEvents`, as far as Zero sends them: the list's, previews, and the end of a deleted session. */
export const streamEventSchema = z.discriminatedUnion('type', [...listedEventSchema.options, startEventSchema, deltaEventSchema, sessionDeletedEventSchema]);
export type StreamEvent = z.infer<typeof streamEventSchema>;
