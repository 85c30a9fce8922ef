import * as z from 'zod';

/**
 * The Files API's and session resources' answers, written from Anthropic's SDK types
 * (`@anthropic-ai/sdk/resources/beta/files`, `…/beta/sessions/resources`): every field the types
 * mark as required, with its type.
 */

/** `BetaFileMetadata`. */
export const fileMetadataSchema = z.object({
  id: z.string(),
  type: z.literal('file'),
  created_at: z.string(),
  filename: z.string(),
  mime_type: z.string(),
  size_bytes: z.number().int(),
  downloadable: z.boolean().optional(),
  expires_at: z.string().nullable().optional(),
  scope: z.object({ id: z.string(), type: z.literal('session') }).nullable().optional(),
});

export const filePageSchema = z.object({ data: z.array(fileMetadataSchema), next_page: z.string().nullable() });

/** `BetaDeletedFile`. */
export const deletedFileSchema = z.object({ id: z.string(), type: z.literal('file_deleted').optional() });

const checkout = z.union([z.object({ type: z.literal('branch'), name: z.string() }), z.object({ type: z.literal('commit'), sha: z.string() })]);

/** `BetaManagedAgentsFileResource`. */
export const fileResourceSchema = z.object({ id: z.string(), type: z.literal('file'), file_id: z.string(), mount_path: z.string(), created_at: z.string(), updated_at: z.string() });
/** `BetaManagedAgentsGitHubRepositoryResource`. */
export const githubResourceSchema = z.object({ id: z.string(), type: z.literal('github_repository'), url: z.string(), mount_path: z.string(), created_at: z.string(), updated_at: z.string(), checkout: checkout.nullable().optional() });
/** `BetaManagedAgentsSessionResource`. */
export const sessionResourceSchema = z.discriminatedUnion('type', [fileResourceSchema, githubResourceSchema]);
export const sessionResourcePageSchema = z.object({ data: z.array(sessionResourceSchema), next_page: z.string().nullable() });
/** `BetaManagedAgentsDeleteSessionResource`. */
export const deletedResourceSchema = z.object({ id: z.string(), type: z.literal('session_resource_deleted') });
