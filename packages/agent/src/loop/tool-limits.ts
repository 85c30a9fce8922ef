import { describeZodError } from '../errors';
import { toolLimitsSchema, type ToolLimits, type ToolUsage } from '../wire';

/**
 * Reads `ZERO_TOOL_LIMITS` (JSON, e.g. `{"http_request": 25}`); throws an error naming
 * the variable and the field when it is malformed, so a deployment does not start with
 * limits it did not mean.
 */
export function toolLimitsFromEnv(raw: string | undefined): ToolLimits {
  if (!raw?.trim()) return {};
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new Error('ZERO_TOOL_LIMITS must be JSON mapping tool names to call limits, e.g. {"http_request": 25}');
  }
  const parsed = toolLimitsSchema.safeParse(value);
  if (!parsed.success) {
    throw new Error(`ZERO_TOOL_LIMITS: ${describeZodError(parsed.error).message}`);
  }
  return parsed.data;
}

/** Where a run's tool-call limits come from: the deployment's and the agent's; the stricter of them wins. */
export interface ToolCallLimits {
  /** Calls of all tools together (`ZERO_MAX_TOOL_CALLS`). */
  maxToolCalls: number;
  /** Calls of any one tool (`ZERO_MAX_CALLS_PER_TOOL`). */
  maxCallsPerTool: number;
  /** The deployment's per-tool limits (`ZERO_TOOL_LIMITS`). */
  toolLimits?: ToolLimits;
  /** The agent file's `tool_limits:`. */
  agentToolLimits?: ToolLimits;
}

/**
 * Counts a run's tool calls against its limits. `reserve` takes one call of a
 * tool: it says why the call may not run (naming the limit), or counts it;
 * either way it gives the tool's statistics as they stand after it (the
 * `tool_usage` event: calls so far, limit, remaining).
 */
export class ToolCallCounter {
  private readonly calls = new Map<string, number>();
  private total = 0;

  constructor(private readonly limits: ToolCallLimits) {}

  /** The calls of `tool` one run may make, and which setting says so. */
  limitOf(tool: string): { limit: number; source: string } {
    let best = { limit: this.limits.maxCallsPerTool, source: 'ZERO_MAX_CALLS_PER_TOOL' };
    const deployment = this.limits.toolLimits?.[tool];
    if (deployment !== undefined && deployment < best.limit) best = { limit: deployment, source: 'ZERO_TOOL_LIMITS' };
    const agent = this.limits.agentToolLimits?.[tool];
    if (agent !== undefined && agent < best.limit) best = { limit: agent, source: "the agent's tool_limits" };
    return best;
  }

  reserve(tool: string): { refused?: string; usage: ToolUsage } {
    const used = this.calls.get(tool) ?? 0;
    const { limit, source } = this.limitOf(tool);
    let refused: string | undefined;
    if (this.total >= this.limits.maxToolCalls) refused = `tool call limit reached (${this.limits.maxToolCalls} per run, ZERO_MAX_TOOL_CALLS)`;
    else if (used >= limit) refused = `limit reached for ${tool} (${limit} calls per run, ${source})`;
    else {
      this.total += 1;
      this.calls.set(tool, used + 1);
    }
    const calls = this.calls.get(tool) ?? 0;
    const remaining = Math.max(0, Math.min(limit - calls, this.limits.maxToolCalls - this.total));
    return {
      ...(refused ? { refused } : {}),
      usage: { tool, calls, limit, remaining, total_calls: this.total, total_limit: this.limits.maxToolCalls },
    };
  }
}
