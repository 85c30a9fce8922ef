import type { AgentCatalog } from '@zero/agent/definitions/catalog';
import { invalidField, notFound } from '@zero/agent/errors';
import { pinnedAgentId, splitPinnedId, type ManagedAgentVersion } from './agent-document';
import type { ManagedAgentStore } from './agent-store';
import { markdownAgentVersion } from './markdown-agent';

export interface AgentLookupDeps {
  catalog: AgentCatalog;
  managedAgents: ManagedAgentStore;
  defaultModel: string;
}

/** An agent's versions as the API shows them, oldest first: a managed agent's own, or a Markdown agent's one. */
export interface ResolvedAgent {
  kind: 'managed' | 'markdown';
  versions: ManagedAgentVersion[];
  archived_at: string | null;
}

/** The agent named `id` (a managed agent or a Markdown agent), or a 404 naming `field`. */
export async function resolveAgent(deps: AgentLookupDeps, id: string, field = 'agent_id'): Promise<ResolvedAgent> {
  const managed = await deps.managedAgents.get(id);
  if (managed) return { kind: 'managed', versions: managed.versions, archived_at: managed.archived_at };
  const markdown = (await deps.catalog.load()).agents.get(id);
  if (markdown && !id.includes('@')) return { kind: 'markdown', versions: [markdownAgentVersion(markdown, deps.defaultModel)], archived_at: null };
  throw notFound(`no agent "${id}"`, field);
}

/** One version of an agent (the newest when `version` is absent), with the id a session that pins it runs under. */
export function pickVersion(agent: ResolvedAgent, version: number | undefined, field = 'version') {
  const doc = version === undefined ? agent.versions.at(-1)! : agent.versions.find((v) => v.version === version);
  if (!doc) throw invalidField(field, `agent "${agent.versions[0]!.id}" has no version ${version} (newest: ${agent.versions.at(-1)!.version})`);
  // A Markdown agent has one version, its file: sessions run it by its id.
  return { doc, catalogId: agent.kind === 'managed' ? pinnedAgentId(doc.id, doc.version) : doc.id };
}

/** The agent and version a session's Zero agent id (`<id>` or `<id>@<n>`) names. */
export async function agentOfSession(deps: AgentLookupDeps, zeroAgentId: string) {
  const { id, version } = splitPinnedId(zeroAgentId);
  const agent = await resolveAgent(deps, id).catch(() => undefined);
  if (!agent) return undefined;
  return pickVersion(agent, agent.kind === 'markdown' ? undefined : version);
}
