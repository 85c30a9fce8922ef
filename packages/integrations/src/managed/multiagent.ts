import { invalidField } from '@zero/agent/errors';
import type { AgentCreateParams } from './agent-params';
import type { Multiagent } from './agent-document';
import { pickVersion, resolveAgent, type AgentLookupDeps } from './resolve-agent';

/**
 * An agent's `multiagent` as stored: a coordinator's roster, each entry resolved to one version of an agent
 * that exists, is not archived and coordinates no one itself (one level deep), all distinct. Zero's delegation
 * runs it: the coordinator may hand tasks to exactly these agents (`delegate_agent`), each a session thread.
 * Refused by name, rather than dropped: `self` (Zero's delegation never hands a task to the agent already
 * working on it), advisors, and the `multiagent_20261001` form (inline agents, workflows and advisors have
 * no counterpart in Zero). 400s name the entry.
 */
export async function multiagentOf(params: NonNullable<AgentCreateParams['multiagent']>, deps: AgentLookupDeps): Promise<Multiagent> {
  if (params.type !== 'coordinator') {
    throw invalidField('multiagent.type', 'Zero runs the "coordinator" form (a roster of 1 to 20 agents, each run as a session thread); "multiagent_20261001" (inline agents, workflows, advisors) is not supported');
  }
  const seen = new Set<string>();
  const agents: Multiagent['agents'] = [];
  for (const [i, entry] of params.agents.entries()) {
    const field = `multiagent.agents.${i}`;
    if (typeof entry !== 'string' && entry.type === 'self') throw invalidField(field, "Zero's delegation never hands a task to the agent already working on it: list other agents");
    if (typeof entry !== 'string' && entry.type === 'advisor') throw invalidField(field, 'Zero has no advisor threads: list agents');
    const id = typeof entry === 'string' ? entry : entry.id;
    const version = typeof entry === 'string' ? undefined : (entry.version ?? undefined);
    // A roster that names no agent is a bad request, not a missing resource.
    const agent = await resolveAgent(deps, id, field).catch(() => {
      throw invalidField(field, `no agent "${id}"`);
    });
    if (agent.archived_at) throw invalidField(field, `agent "${id}" is archived`);
    const { doc } = pickVersion(agent, agent.kind === 'markdown' ? undefined : version, `${field}.version`);
    if (doc.multiagent) throw invalidField(field, `agent "${id}" coordinates agents itself; a roster is one level deep`);
    if (seen.has(doc.id)) throw invalidField(field, `agent "${id}" is listed twice`);
    seen.add(doc.id);
    agents.push({ type: 'agent', id: doc.id, version: doc.version });
  }
  return { type: 'coordinator', agents };
}
