import type { S3Client } from '@aws-sdk/client-s3';
import type { CatalogSnapshot } from '@zero/agent/definitions/catalog';
import { managedAgentStore } from './agent-store';
import { definitionOf } from './to-definition';

/**
 * The catalog with the agents made through the Managed Agents API added: each under its id (its
 * newest version) and each version under `<id>@<n>`, so `/api/v2` can use them and a session pinned
 * to a version keeps it. A Markdown agent keeps its id (a managed agent's, `agent_…`, cannot be a file's).
 * Loaded by the S3 catalog when it rereads the bucket, not at cold start.
 */
export async function withManagedAgents(snapshot: CatalogSnapshot, s3: S3Client, bucket: string): Promise<CatalogSnapshot> {
  const { agents: managed, errors } = await managedAgentStore(s3, bucket).list();
  if (managed.length === 0 && errors.length === 0) return snapshot;
  const agents = new Map(snapshot.agents);
  for (const agent of managed) {
    if (!agents.has(agent.id)) agents.set(agent.id, definitionOf(agent.versions.at(-1)!, false));
    for (const version of agent.versions) agents.set(`${version.id}@${version.version}`, definitionOf(version, true));
  }
  return { agents, errors: [...snapshot.errors, ...errors.map((e) => ({ file: e.key, field: 'version', message: e.message }))] };
}
