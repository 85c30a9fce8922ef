import { EFFORT_BUDGETS, type Effort } from '../wire/fields';

export { EFFORT_BUDGETS };

/** Model ids as the Anthropic API or Bedrock name them: `bedrock:claude-…`, `anthropic.claude-…`, `eu.anthropic.claude-…`. */
const CLAUDE = '^(bedrock:)?([a-z]{2,4}\\.)?(anthropic\\.)?claude-';

/**
 * Whether a model can think before it answers: Claude 3.7 Sonnet, the Claude 4 and 5 families and
 * Mythos, on the Anthropic API or Bedrock. A model outside the list (an older Claude, an
 * OpenAI-compatible endpoint's) runs with thinking off.
 */
export function supportsThinking(model: string): boolean {
  return new RegExp(`${CLAUDE}(3-7-sonnet|(opus|sonnet|haiku)-4|(opus|sonnet|haiku|mythos|fable)-5|mythos-preview)`).test(model);
}

/**
 * Models on which the API deprecates a thinking budget (`type: "enabled"`) for adaptive thinking,
 * where Claude decides how much to think and an effort level steers it (the SDK warns for these).
 */
const ADAPTIVE = new RegExp(`${CLAUDE}(opus-4-6|mythos-preview)`);

/** A budget as the effort level adaptive thinking takes: Claude Code's levels, read back from `EFFORT_BUDGETS`. */
export function effortOf(budgetTokens: number): 'low' | 'medium' | 'high' {
  return budgetTokens <= EFFORT_BUDGETS.low ? 'low' : budgetTokens <= EFFORT_BUDGETS.medium ? 'medium' : 'high';
}

/** The request fields that ask a model for thinking: a budget, or adaptive thinking with an effort where the API prefers it. */
export function thinkingParams(model: string, budgetTokens: number) {
  if (ADAPTIVE.test(model)) return { thinking: { type: 'adaptive' as const }, output_config: { effort: effortOf(budgetTokens) } };
  return { thinking: { type: 'enabled' as const, budget_tokens: budgetTokens } };
}

/**
 * The thinking a call asks for: the agent's budget (`effort` or `thinking:`; 0 keeps it off), else
 * the deployment's default (`ZERO_THINKING_BUDGET`), and only for a model that supports it.
 */
export function thinkingFor(model: string, agent: { thinking_budget?: number }, deployment: { thinkingBudgetTokens: number }): { budgetTokens: number } | undefined {
  const budget = agent.thinking_budget ?? deployment.thinkingBudgetTokens;
  return budget > 0 && supportsThinking(model) ? { budgetTokens: budget } : undefined;
}

/** How `GET /api/v2/agents` describes an agent's thinking for its model (`adaptive`: the model decides, at this effort). */
export function describeThinking(
  model: string,
  agent: { thinking_budget?: number },
  deployment: { thinkingBudgetTokens: number },
): { budget_tokens: number; adaptive?: { effort: 'low' | 'medium' | 'high' } } | { off: string } {
  const budget = agent.thinking_budget ?? deployment.thinkingBudgetTokens;
  if (budget <= 0) return { off: agent.thinking_budget === 0 ? 'the agent file turns thinking off' : 'no thinking budget is set (agent effort/thinking, or ZERO_THINKING_BUDGET)' };
  if (!supportsThinking(model)) return { off: `model "${model}" does not support extended thinking` };
  return ADAPTIVE.test(model) ? { budget_tokens: budget, adaptive: { effort: effortOf(budget) } } : { budget_tokens: budget };
}

/** The effort a run's thinking is shown as: its budget's level (see `effortOf`), `off` when it does not think. */
export function runEffort(model: string, agent: { thinking_budget?: number }, deployment: { thinkingBudgetTokens: number }): Effort {
  const thinking = thinkingFor(model, agent, deployment);
  return thinking ? effortOf(thinking.budgetTokens) : 'off';
}
