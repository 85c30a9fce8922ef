import * as z from 'zod';
import { describeZodError } from '../errors';
import { complexityLevelSchema, type ComplexityLevel } from '../wire';
import type { ModelTier } from './aliases';

/**
 * Agent Zero's tier routing: a task's complexity, F1 (a lookup) to F5 (a hard, open
 * problem), decides the model tier and whether the tool loop runs. F1–F2: text only, on
 * the light tier; F3–F4: with tools, on the standard tier; F5: with tools, on the heavy tier.
 */
export function routeOf(level: ComplexityLevel): { tier: ModelTier; tools: boolean } {
  if (level === 'F1' || level === 'F2') return { tier: 'light', tools: false };
  if (level === 'F5') return { tier: 'heavy', tools: true };
  return { tier: 'standard', tools: true };
}

/** An operator's rule (`ZERO_COMPLEXITY_RULES`): a message matching `match` (a case-insensitive regular expression) is of `level`. */
const complexityRuleSchema = z.strictObject({
  match: z.string().min(1, 'must be a regular expression').max(500).refine((source) => {
    try {
      new RegExp(source, 'i');
      return true;
    } catch {
      return false;
    }
  }, 'must be a valid regular expression'),
  level: complexityLevelSchema,
});
export type ComplexityRule = z.infer<typeof complexityRuleSchema>;

/** Reads `ZERO_COMPLEXITY_RULES` (JSON, e.g. `[{"match": "^(what|who) is", "level": "F1"}]`); throws naming the variable and the field when it is malformed. */
export function complexityRulesFromEnv(raw: string | undefined): ComplexityRule[] {
  if (!raw?.trim()) return [];
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new Error('ZERO_COMPLEXITY_RULES must be JSON: a list of {"match": "<regular expression>", "level": "F1".."F5"}');
  }
  const parsed = z.array(complexityRuleSchema).max(100).safeParse(value);
  if (!parsed.success) throw new Error(`ZERO_COMPLEXITY_RULES: ${describeZodError(parsed.error).message}`);
  return parsed.data;
}

/** How a run's complexity was decided: by whom, and the rule that matched. */
export interface ComplexityDecision {
  level: ComplexityLevel;
  by: 'request' | 'agent' | 'rule';
  rule?: string;
}

/** The request's level, else the agent's, else the first operator rule the message matches; undefined: no routing (the run goes as the agent says). */
export function decideComplexity(message: string, asked: { request?: ComplexityLevel; agent?: ComplexityLevel }, rules: readonly ComplexityRule[]): ComplexityDecision | undefined {
  if (asked.request) return { level: asked.request, by: 'request' };
  if (asked.agent) return { level: asked.agent, by: 'agent' };
  const rule = rules.find((r) => new RegExp(r.match, 'i').test(message));
  return rule ? { level: rule.level, by: 'rule', rule: rule.match } : undefined;
}
