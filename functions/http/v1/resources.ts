import * as z from 'zod';

/**
 * What the `/v1` routes answer, for the OpenAPI document: the outline of the Managed Agents API's
 * resources (Anthropic's SDK types, `@anthropic-ai/sdk/resources/beta`, hold them in full).
 */
export const agentSchema = z.looseObject({ type: z.literal('agent'), id: z.string(), version: z.number().int(), name: z.string(), created_at: z.string() });
export const agentPageSchema = z.object({ data: z.array(agentSchema), next_page: z.string().nullable() });
export const environmentSchema = z.looseObject({ type: z.literal('environment'), id: z.string(), name: z.string() });
export const environmentPageSchema = z.object({ data: z.array(environmentSchema), next_page: z.string().nullable() });
export const managedSessionSchema = z.looseObject({ type: z.literal('session'), id: z.string(), status: z.enum(['idle', 'running', 'rescheduling', 'terminated']) });
export const managedSessionPageSchema = z.object({ data: z.array(managedSessionSchema), next_page: z.string().nullable(), prev_page: z.string().nullable() });
export const deletedSessionSchema = z.object({ type: z.literal('session_deleted'), id: z.string() });
export const managedEventSchema = z.looseObject({ type: z.string(), id: z.string(), processed_at: z.string().nullable() });
export const managedEventPageSchema = z.object({ data: z.array(managedEventSchema), next_page: z.string().nullable() });
export const sentEventsSchema = z.object({ data: z.array(managedEventSchema) });
