import * as z from 'zod';
import { toolLimitsSchema } from '../wire';
import { toolLimitsFromEnv } from './tool-limits';
import { onFirstUse } from '../on-first-use';

// Built on first use: only a deployment that overrides a limit parses one (about 90 zod objects not built at cold start).
const buildRunLimitsSchema = () =>
  z.object({
    maxSteps: z.number().int().positive(),
    maxToolCalls: z.number().int().positive(),
    maxCallsPerTool: z.number().int().positive(),
    /** Per-tool limits (`ZERO_TOOL_LIMITS`, JSON): a tool named here gets the stricter of its limit and `maxCallsPerTool`. */
    toolLimits: toolLimitsSchema.optional(),
    wallTimeMs: z.number().int().positive(),
    /** Input + output tokens across the run's model calls. */
    maxTokens: z.number().int().positive(),
    maxOutputTokensPerCall: z.number().int().positive(),
    maxToolOutputChars: z.number().int().positive(),
    toolTimeoutMs: z.number().int().positive(),
    /** Silence a model stream may keep (before its headers or between its events) before the step is given up on. */
    modelIdleTimeoutMs: z.number().int().positive(),
    /** Attempts of one step when the model stream fails mid-way. */
    stepAttempts: z.number().int().positive(),
    retryBaseMs: z.number().int().nonnegative(),
    /** How deep delegation may nest: 1 lets the agent a user talks to delegate, but not its delegates. 0 turns delegation off. */
    maxDelegationDepth: z.number().int().nonnegative(),
    /** The context window in tokens of every model its endpoint's configuration does not name; 0: by model (model/context-windows.ts). */
    contextWindowTokens: z.number().int().nonnegative(),
    /** The conversation is compacted before a call that would send more than this share of the window (percent). */
    compactAtPercent: z.number().int().min(1).max(100),
    /** Turns (a user message and its answer) a compaction always keeps as they are, the latest ones. */
    compactKeepTurns: z.number().int().nonnegative(),
    /** A compaction that frees less than this share of the tokens (percent) ends the run with `context_exhausted`. */
    compactMinFreedPercent: z.number().int().nonnegative().max(100),
    /** The deployment's default extended-thinking budget in tokens for agents that set none; 0: thinking off. */
    thinkingBudgetTokens: z.number().int().nonnegative(),
  });
/** Every limit of a run, enforced in one place: the loop. */
export const runLimitsSchema = onFirstUse(buildRunLimitsSchema);
export type RunLimits = z.infer<ReturnType<typeof buildRunLimitsSchema>>;

export const DEFAULT_LIMITS: RunLimits = {
  maxSteps: 30,
  maxToolCalls: 100,
  maxCallsPerTool: 40,
  wallTimeMs: 14 * 60_000,
  maxTokens: 2_000_000,
  maxOutputTokensPerCall: 8192,
  maxToolOutputChars: 50_000,
  toolTimeoutMs: 60_000,
  modelIdleTimeoutMs: 30_000,
  stepAttempts: 3,
  retryBaseMs: 1000,
  maxDelegationDepth: 2,
  contextWindowTokens: 0,
  compactAtPercent: 80,
  compactKeepTurns: 5,
  compactMinFreedPercent: 20,
  thinkingBudgetTokens: 0,
};

const ENV: Record<Exclude<keyof RunLimits, 'toolLimits'>, string> = {
  maxSteps: 'ZERO_MAX_STEPS',
  maxToolCalls: 'ZERO_MAX_TOOL_CALLS',
  maxCallsPerTool: 'ZERO_MAX_CALLS_PER_TOOL',
  wallTimeMs: 'ZERO_RUN_TIMEOUT_MS',
  maxTokens: 'ZERO_MAX_TOKENS',
  maxOutputTokensPerCall: 'ZERO_MAX_OUTPUT_TOKENS',
  maxToolOutputChars: 'ZERO_MAX_TOOL_OUTPUT_CHARS',
  toolTimeoutMs: 'ZERO_TOOL_TIMEOUT_MS',
  modelIdleTimeoutMs: 'ZERO_MODEL_IDLE_TIMEOUT_MS',
  stepAttempts: 'ZERO_STEP_ATTEMPTS',
  retryBaseMs: 'ZERO_RETRY_BASE_MS',
  maxDelegationDepth: 'ZERO_MAX_DELEGATION_DEPTH',
  contextWindowTokens: 'ZERO_CONTEXT_WINDOW',
  compactAtPercent: 'ZERO_COMPACT_AT_PERCENT',
  compactKeepTurns: 'ZERO_COMPACT_KEEP_TURNS',
  compactMinFreedPercent: 'ZERO_COMPACT_MIN_FREED_PERCENT',
  thinkingBudgetTokens: 'ZERO_THINKING_BUDGET',
};

/**
 * Reads limit overrides from the environment; a malformed value fails start-up with its variable named.
 * With no override, a copy of `base` is answered unparsed (a zod schema's first parse compiles its parser: ~2–6 ms of every cold start).
 */
export function limitsFromEnv(env: Record<string, string | undefined>, base: RunLimits = DEFAULT_LIMITS): RunLimits {
  const out: Record<string, unknown> = { ...base };
  let overridden = false;
  for (const [key, name] of Object.entries(ENV)) {
    const raw = env[name];
    if (raw === undefined || raw === '') continue;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
    out[key] = value;
    overridden = true;
  }
  if (env.ZERO_TOOL_LIMITS?.trim()) {
    out.toolLimits = toolLimitsFromEnv(env.ZERO_TOOL_LIMITS);
    overridden = true;
  }
  return overridden ? runLimitsSchema().parse(out) : (out as RunLimits);
}
