import * as z from 'zod';

/**
 * The memory store answers of the Managed Agents API, written from Anthropic's SDK types
 * (`@anthropic-ai/sdk/resources/beta/memory-stores/{memory-stores,memories,memory-versions}`):
 * every field the types mark as required, with its type; strict, so an undeclared field fails.
 */

/** `BetaManagedAgentsMemoryStore`. */
export const memoryStoreSchema = z.strictObject({
  id: z.string().regex(/^memstore_/),
  type: z.literal('memory_store'),
  name: z.string(),
  description: z.string(),
  metadata: z.record(z.string(), z.string()),
  archived_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export const memoryStorePageSchema = z.object({ data: z.array(memoryStoreSchema), next_page: z.string().nullable().optional() });
/** `BetaManagedAgentsDeletedMemoryStore`. */
export const deletedMemoryStoreSchema = z.strictObject({ id: z.string(), type: z.literal('memory_store_deleted') });

/** `BetaManagedAgentsMemory`. */
export const memorySchema = z.strictObject({
  id: z.string().regex(/^mem_/),
  type: z.literal('memory'),
  memory_store_id: z.string(),
  memory_version_id: z.string().regex(/^memver_/),
  path: z.string().startsWith('/'),
  content_sha256: z.string().regex(/^[0-9a-f]{64}$/),
  content_size_bytes: z.number().int(),
  created_at: z.string(),
  updated_at: z.string(),
  content: z.string().nullable().optional(),
});
/** `BetaManagedAgentsMemoryPrefix`. */
export const memoryPrefixSchema = z.strictObject({ type: z.literal('memory_prefix'), path: z.string().endsWith('/') });
export const memoryPageSchema = z.object({ data: z.array(z.union([memorySchema, memoryPrefixSchema])), next_page: z.string().nullable().optional() });
/** `BetaManagedAgentsDeletedMemory`. */
export const deletedMemorySchema = z.strictObject({ id: z.string(), type: z.literal('memory_deleted') });

/** `BetaManagedAgentsActor`. */
const actorSchema = z.union([
  z.strictObject({ type: z.literal('session_actor'), session_id: z.string() }),
  z.strictObject({ type: z.literal('api_actor'), api_key_id: z.string() }),
  z.strictObject({ type: z.literal('user_actor'), user_id: z.string() }),
  z.strictObject({ type: z.literal('service_account_actor'), service_account_id: z.string() }),
]);
/** `BetaManagedAgentsMemoryVersion`. */
export const memoryVersionSchema = z.strictObject({
  id: z.string().regex(/^memver_/),
  type: z.literal('memory_version'),
  memory_id: z.string(),
  memory_store_id: z.string(),
  operation: z.enum(['created', 'modified', 'deleted']),
  created_at: z.string(),
  content: z.string().nullable().optional(),
  content_sha256: z.string().nullable().optional(),
  content_size_bytes: z.number().nullable().optional(),
  created_by: actorSchema.optional(),
  path: z.string().nullable().optional(),
  redacted_at: z.string().nullable().optional(),
  redacted_by: actorSchema.nullable().optional(),
});
export const memoryVersionPageSchema = z.object({ data: z.array(memoryVersionSchema), next_page: z.string().nullable().optional() });

/** `BetaManagedAgentsMemoryPathConflictErrorObject` | `BetaManagedAgentsMemoryPreconditionFailedErrorObject` in the API's error envelope. */
export const memoryConflictSchema = z.object({
  type: z.literal('error'),
  error: z.union([
    z.strictObject({ type: z.literal('memory_path_conflict_error'), message: z.string().optional(), conflicting_path: z.string().optional(), conflicting_memory_id: z.string().optional() }),
    z.strictObject({ type: z.literal('memory_precondition_failed_error'), message: z.string().optional() }),
  ]),
});
