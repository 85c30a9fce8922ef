import * as z from 'zod';
import { requireAgent } from '../agent/catalog';
import { ZeroError } from '../errors';
import { defineTool } from './tool';

/** Describes an agent so another agent can decide whether to hand it work. */
export const getAgentInfoTool = defineTool({
  name: 'get_agent_info',
  description:
    'Describe a Zero agent: its role, capabilities, tools and the agents it may delegate to. ' +
    'Call it without agent_id to list every available agent with a one-line description.',
  input: z.object({
    agent_id: z.string().min(1).max(64).optional().describe('The agent to describe, e.g. "cereal". Omit to list all agents.'),
  }),
  async execute({ agent_id }, { catalog }) {
    if (!agent_id) {
      const { agents } = await catalog.load();
      const lines = [...agents.values()].sort((a, b) => a.id.localeCompare(b.id)).map((a) => `- ${a.id} (${a.name}): ${a.description}`);
      return `Available agents:\n${lines.join('\n')}`;
    }
    try {
      const agent = await requireAgent(catalog, agent_id);
      return [
        `# ${agent.name} (${agent.id})`,
        agent.description,
        `## Role\n${agent.role || '(not stated)'}`,
        `## Capabilities\n${agent.capabilities.map((c) => `- ${c}`).join('\n') || '(none listed)'}`,
        `## Tools\n${agent.tools.join(', ') || '(none)'}`,
        `## Delegates to\n${agent.delegation.map((d) => `- ${d.agent_id}${d.when ? `: ${d.when}` : ''}`).join('\n') || '(nobody)'}`,
      ].join('\n\n');
    } catch (error) {
      if (ZeroError.isInstance(error)) return { content: error.message, is_error: true };
      throw error;
    }
  },
});
