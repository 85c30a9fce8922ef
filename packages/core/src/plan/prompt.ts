import type { Plan } from '../wire/plan';

/**
 * The message a plan becomes, in the shape the CLI-agent design uses: the
 * goal, then the context, then the steps as numbered guidance.
 */
export function planPrompt(plan: Plan): string {
  const parts = ['You are assisting with the following task:', `GOAL:\n${plan.goal}`];
  const context = Array.isArray(plan.context) ? plan.context.map((c) => `- ${c}`).join('\n') : plan.context;
  if (context) parts.push(`CONTEXT:\n${context}`);
  if (plan.steps?.length) {
    parts.push(`INSTRUCTIONS (follow as guidance):\n${plan.steps.map((step, i) => `${i + 1}. ${step}`).join('\n')}`);
    parts.push('PROGRESS: call plan_progress with a step\'s number and "started" when you begin it, then "done" or "failed" when it ends.');
  }
  return parts.join('\n\n');
}
