/**
 * How many input tokens a model takes, by model id. Claude's current models take 200k tokens
 * (1M only behind a beta header Zero does not send); a model not listed is taken to have the
 * default. `ZERO_CONTEXT_WINDOW` (RunLimits.contextWindowTokens) replaces the table for every model.
 */
const WINDOWS: [prefix: string, tokens: number][] = [['claude-', 200_000]];

export const DEFAULT_CONTEXT_WINDOW = 200_000;

export function contextWindowOf(model: string, override = 0): number {
  if (override > 0) return override;
  return WINDOWS.find(([prefix]) => model.startsWith(prefix))?.[1] ?? DEFAULT_CONTEXT_WINDOW;
}
