import * as z from 'zod';
import type { ArtifactStore } from './artifact-store';

/** The default environment (see `environment-store/`): a session made through `/api/v2` is in it. */
export const ZERO_ENVIRONMENT_ID = 'env_zero_lambda';

/**
 * A GitHub repository the session's commands see in their working copy (`resources` of
 * `POST /v1/sessions`): its tree at `sha` (or the head of `branch` when the run first needs it),
 * at `mount_path` under `/workspace`. No token is kept: it is read with the deployment's GitHub
 * credentials when an administrator attached it (`credentials: deployment`), else anonymously
 * (public repositories only).
 */
export const githubRepositoryResourceSchema = z.object({
  type: z.literal('github_repository'),
  id: z.string(),
  url: z.string(),
  /** `owner/name`. */
  repo: z.string(),
  checkout: z.union([z.object({ type: z.literal('commit'), sha: z.string() }), z.object({ type: z.literal('branch'), name: z.string() })]).nullable(),
  /** Relative to the working copy's root (`/workspace`). */
  mount_path: z.string(),
  credentials: z.enum(['deployment', 'none']),
  created_at: z.string(),
  updated_at: z.string(),
});
export type GitHubRepositoryResource = z.infer<typeof githubRepositoryResourceSchema>;

/**
 * A Files API file the session's commands see in their working copy, at `mount_path` (relative to
 * `/workspace`). Its bytes are the blob `sha256`, held by the session from when it was attached: a
 * later delete of the file leaves the session's copy.
 */
export const fileResourceSchema = z.object({
  type: z.literal('file'),
  id: z.string(),
  file_id: z.string(),
  sha256: z.string(),
  mount_path: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type FileResource = z.infer<typeof fileResourceSchema>;

/**
 * A Managed Agents memory store (`memstore_…`) of the session's owner, attached at attach time:
 * the memory tool reaches its memories under `mount_path` (`/mnt/memory/<slug>`, absolute, not in
 * the working copy), reading always and writing only when `access` is `read_write`. `name` and
 * `description` are snapshots; `owner` is whose store it is (never shown).
 */
export const memoryStoreResourceSchema = z.object({
  type: z.literal('memory_store'),
  id: z.string(),
  memory_store_id: z.string(),
  owner: z.string(),
  access: z.enum(['read_write', 'read_only']),
  instructions: z.string().nullable(),
  name: z.string(),
  description: z.string(),
  mount_path: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type MemoryStoreResource = z.infer<typeof memoryStoreResourceSchema>;

/** What a session mounts into its working copy, and the memory stores its memory tool reaches. */
export const sessionResourceSchema = z.discriminatedUnion('type', [githubRepositoryResourceSchema, fileResourceSchema, memoryStoreResourceSchema]);
export type SessionResource = z.infer<typeof sessionResourceSchema>;

/**
 * What a session made through the Managed Agents API keeps beyond Zero's session: the agent version
 * it pinned, its custom tools (answered as client tools), metadata and archive time. Stored at
 * `sessions/<id>/managed.json`, under the session's prefix, so deleting the session deletes it.
 */
export const managedSessionRecordSchema = z.object({
  v: z.literal(1),
  agent_id: z.string(),
  agent_version: z.number().int().positive(),
  environment_id: z.string(),
  title: z.string().nullable(),
  metadata: z.record(z.string(), z.string()),
  archived_at: z.string().nullable(),
  custom_tools: z.array(z.object({ name: z.string(), description: z.string(), input_schema: z.looseObject({ type: z.literal('object') }) })),
  /** In a self-hosted environment: the toolset tools a worker runs, each standing in for Zero's tool of the same job (sent as client tools). */
  environment_tools: z.array(z.object({ name: z.string(), description: z.string(), input_schema: z.looseObject({ type: z.literal('object') }), replaces: z.string().optional() })).optional(),
  /** Repositories and files mounted into the working copy of the session's commands (absent: none). */
  resources: z.array(sessionResourceSchema).optional(),
  /**
   * The vaults whose credentials the session's tools use (`vault_ids`), in the order given, and
   * whose they are: the session's creator, checked when the session was made (absent: none).
   */
  vaults: z.object({ owner: z.string(), ids: z.array(z.string()) }).optional(),
});
export type ManagedSessionRecord = z.infer<typeof managedSessionRecordSchema>;

const recordKey = (sessionId: string) => `sessions/${sessionId}/managed.json`;

export async function readSessionRecord(artifacts: ArtifactStore, sessionId: string): Promise<ManagedSessionRecord | undefined> {
  const raw = await artifacts.getJson(recordKey(sessionId));
  return raw === undefined ? undefined : managedSessionRecordSchema.parse(raw);
}

export async function writeSessionRecord(artifacts: ArtifactStore, sessionId: string, record: ManagedSessionRecord): Promise<void> {
  await artifacts.putJson(recordKey(sessionId), managedSessionRecordSchema.parse(record));
}
