import * as z from 'zod';
import { defineTool } from './tool';

/** Hands a sub-task to another agent; the delegate's final answer is the result. */
export const delegateAgentTool = defineTool({
  name: 'delegate_agent',
  // Starting a delegate changes nothing by itself: each of its calls is decided by its own agent's policy.
  readOnly: true,
  startsRuns: true,
  description:
    'Hand a self-contained sub-task to another Zero agent and wait for its answer, which comes back as this tool result. ' +
    'You may only delegate to the agents your Delegation rules name; call get_agent_info to see what one can do. ' +
    'The delegate does not see this conversation: put everything it needs in task and context. ' +
    'Several delegate_agent calls in one turn run in parallel.',
  input: () => z.strictObject({
    agent_id: z.string().min(1).max(64).describe('The agent to hand the task to, e.g. "cereal".'),
    task: z.string().trim().min(1, 'must not be empty').max(20_000).describe('What the delegate should find out or do, and what its answer should contain.'),
    context: z.string().max(50_000).optional().describe('Facts the delegate needs from this conversation: the project, file paths, findings so far.'),
    tier: z
      .enum(['light', 'standard', 'heavy'])
      .optional()
      .describe('Optional: run the delegate on a lighter or heavier model than its own (light: quick lookups; heavy: hard reasoning).'),
  }),
  // A delegate is bounded by its own run limits (and what is left of the caller's time), not by the tool timeout.
  timeoutMs: 2_147_483_647,
  async execute({ agent_id, task, context, tier }, { delegator, toolCallId, signal }) {
    if (!delegator) return { content: 'Delegation is not available in this run.', is_error: true };
    return delegator.delegate({ agentId: agent_id, task, ...(context ? { context } : {}), ...(tier ? { tier } : {}) }, { toolCallId, signal });
  },
});
