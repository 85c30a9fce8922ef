import type { Plan } from '../wire/plan';

/**
 * The message a plan becomes, in the shape the CLI-agent design uses: the
 * goal, then the context, then the steps as numbered guidance.
 */
export function planPrompt(plan: Plan): string {
  const parts = ['You are assisting with the following task:', `GOAL:\n${plan.goal}`];
  const context = contextText(plan.context);
  if (context) parts.push(`CONTEXT:\n${context}`);
  const steps = plan.steps ?? plan.instructions;
  if (steps?.length) {
    parts.push(`INSTRUCTIONS (follow as guidance):\n${steps.map((step, i) => `${i + 1}. ${step}`).join('\n')}`);
    parts.push('PROGRESS: call plan_progress with a step\'s number and "started" when you begin it, then "done" or "failed" when it ends.');
  }
  return parts.join('\n\n');
}

/** Prose as it is; a list or named facts (`directory: src/`) as `- ` lines, names capitalised as the design's example shows. */
function contextText(context: Plan['context']): string | undefined {
  if (context === undefined || typeof context === 'string') return context;
  if (Array.isArray(context)) return context.map((c) => `- ${c}`).join('\n');
  return Object.entries(context)
    .map(([name, value]) => `- ${name.charAt(0).toUpperCase()}${name.slice(1)}: ${value}`)
    .join('\n');
}
