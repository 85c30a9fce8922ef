import * as z from 'zod';
import { requireAgent } from '@zero/agent/definitions/catalog';
import { ZeroError } from '@zero/agent/errors';
import { defineTool } from './tool';

/** Describes an agent so another agent can decide whether to hand it work. */
export const getAgentInfoTool = defineTool({
  name: 'get_agent_info',
  readOnly: true,
  description:
    'Describe a Zero agent: its role, capabilities, tools, the agents it may delegate to, and whether you may delegate to it. ' +
    'Call it without agent_id to list every available agent with a one-line description.',
  input: () => z.object({
    agent_id: z.string().min(1).max(64).optional().describe('The agent to describe, e.g. "cereal". Omit to list all agents.'),
  }),
  async execute({ agent_id }, { catalog, agent: caller }) {
    const { agents } = await catalog.load();
    const mayDelegate = new Set(caller.delegation.map((rule) => rule.agent_id));
    if (!agent_id) {
      const lines = [...agents.values()]
        .sort((a, b) => a.id.localeCompare(b.id))
        .map((a) => `- ${a.id} (${a.name}${a.domain ? `, ${a.domain}` : ''}): ${gist(a.description)}${mayDelegate.has(a.id) ? ' [you may delegate to it]' : ''}`);
      return `Available agents (ask with agent_id for one's whole description):\n${lines.join('\n')}`;
    }
    try {
      const agent = await requireAgent(catalog, agent_id);
      const delegatedToBy = [...agents.values()].filter((a) => a.delegation.some((rule) => rule.agent_id === agent.id)).map((a) => a.id);
      const voices = (['full', 'minimal', 'neutral'] as const).filter((mode) => agent.voices[mode]);
      return [
        `# ${agent.name} (${agent.id})`,
        agent.description,
        ...(agent.domain ? [`Domain: ${agent.domain}.`] : []),
        `## Role\n${agent.role || '(not stated)'}`,
        `## Capabilities\n${agent.capabilities.map((c) => `- ${c}`).join('\n') || '(none listed)'}`,
        `## Tools\n${agent.tools.join(', ') || '(none)'}`,
        `## Delegates to\n${agent.delegation.map((d) => `- ${d.agent_id}${d.when ? `: ${d.when}` : ''}`).join('\n') || '(nobody)'}`,
        `## Delegated to by\n${delegatedToBy.join(', ') || '(nobody)'}`,
        `## Model and voice\nModel: ${agent.model ?? 'the deployment default'}. Default voice: ${agent.default_voice}. Voices written: ${voices.join(', ') || '(none)'}.`,
        agent.id === caller.id
          ? 'This is you.'
          : mayDelegate.has(agent.id)
            ? `You (${caller.id}) may delegate to ${agent.id} with delegate_agent.`
            : `You (${caller.id}) may not delegate to ${agent.id}.`,
      ].join('\n\n');
    } catch (error) {
      if (ZeroError.isInstance(error)) return { content: error.message, is_error: true };
      throw error;
    }
  },
});

/**
 * A description's first sentence, at most 160 characters: the listing stays short however many agents
 * there are and however long their descriptions (Claude Code's carry whole <example> blocks).
 */
function gist(description: string): string {
  const first = description.split(/(?<=[.!?])\s/u)[0]!.trim();
  return first.length > 160 ? `${first.slice(0, 159)}…` : first;
}
