import * as z from 'zod';

/**
 * The dream answers of the Managed Agents API, written from Anthropic's SDK types
 * (`@anthropic-ai/sdk/resources/beta/dreams`): every field the types mark as required, with its
 * type; strict, so an undeclared field fails.
 */

const memoryStoreRef = z.strictObject({ type: z.literal('memory_store'), memory_store_id: z.string().regex(/^memstore_/) });

/** `BetaDream`. */
export const dreamSchema = z.strictObject({
  id: z.string().regex(/^drm_/),
  type: z.literal('dream'),
  archived_at: z.string().nullable(),
  created_at: z.string(),
  ended_at: z.string().nullable(),
  /** `BetaDreamErrorObject`. */
  error: z.strictObject({ type: z.string(), message: z.string() }).nullable(),
  /** `BetaDreamInput`: `BetaDreamMemoryStoreInput` | `BetaDreamSessionsInput`. */
  inputs: z.array(z.discriminatedUnion('type', [memoryStoreRef, z.strictObject({ type: z.literal('sessions'), session_ids: z.array(z.string()) })])),
  instructions: z.string().nullable(),
  /** `BetaDreamModelConfig`. */
  model: z.strictObject({ id: z.string(), speed: z.enum(['standard', 'fast']).optional() }),
  /** `BetaOutputBehavior`. */
  output_behavior: z.discriminatedUnion('type', [z.strictObject({ type: z.literal('create_new') }), z.strictObject({ type: z.literal('update_existing'), memory_store_id: z.string().regex(/^memstore_/) })]),
  /** `BetaDreamOutput`. */
  outputs: z.array(memoryStoreRef),
  session_id: z.string().nullable(),
  status: z.enum(['pending', 'running', 'completed', 'failed', 'canceled']),
  /** `BetaDreamUsage`. */
  usage: z.strictObject({
    cache_creation_input_tokens: z.number(),
    cache_read_input_tokens: z.number(),
    input_tokens: z.number(),
    output_tokens: z.number(),
  }),
});
export type DreamAnswer = z.infer<typeof dreamSchema>;

export const dreamPageSchema = z.object({ data: z.array(dreamSchema), next_page: z.string().nullable().optional() });

/** `BetaTargetStoreHeldErrorObject` inside the API's error envelope. */
export const storeHeldErrorSchema = z.object({ type: z.literal('error'), error: z.object({ type: z.literal('conflict_error'), message: z.string() }) });
