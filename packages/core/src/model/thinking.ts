/** Claude Code's `effort` levels as extended-thinking budgets (tokens). */
export const EFFORT_BUDGETS = { low: 2_048, medium: 8_192, high: 24_576 } as const;

/**
 * Whether a model can think before it answers: Claude 3.7 Sonnet and the Claude 4 family, on the
 * Anthropic API or Bedrock. A model outside the list (an older Claude, an OpenAI-compatible
 * endpoint's) runs with thinking off.
 */
export function supportsThinking(model: string): boolean {
  // On Bedrock too (`bedrock:claude-…`, or its own ids `anthropic.claude-…`, `eu.anthropic.claude-…`): the same models, the same API.
  return /^(bedrock:)?([a-z]{2,4}\.)?(anthropic\.)?claude-(3-7-sonnet|(opus|sonnet|haiku)-4)/.test(model);
}

/**
 * The thinking a call asks for: the agent's budget (`effort` or `thinking:`; 0 keeps it off), else
 * the deployment's default (`ZERO_THINKING_BUDGET`), and only for a model that supports it.
 */
export function thinkingFor(model: string, agent: { thinking_budget?: number }, deployment: { thinkingBudgetTokens: number }): { budgetTokens: number } | undefined {
  const budget = agent.thinking_budget ?? deployment.thinkingBudgetTokens;
  return budget > 0 && supportsThinking(model) ? { budgetTokens: budget } : undefined;
}

/** How `GET /api/v2/agents` describes an agent's thinking for its model. */
export function describeThinking(model: string, agent: { thinking_budget?: number }, deployment: { thinkingBudgetTokens: number }): { budget_tokens: number } | { off: string } {
  const budget = agent.thinking_budget ?? deployment.thinkingBudgetTokens;
  if (budget <= 0) return { off: agent.thinking_budget === 0 ? 'the agent file turns thinking off' : 'no thinking budget is set (agent effort/thinking, or ZERO_THINKING_BUDGET)' };
  if (!supportsThinking(model)) return { off: `model "${model}" does not support extended thinking` };
  return { budget_tokens: budget };
}
