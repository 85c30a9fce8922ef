import { COPILOT_CONTEXT_WINDOW, COPILOT_MODELS } from './copilot-models';

/**
 * How many input tokens a model takes, by model id. Claude's current models take 200k tokens
 * (1M only behind a beta header Zero does not send); GitHub Copilot's take what its table says
 * (128k), whether named `copilot:gpt-5-mini` or `gpt-5-mini`; a model not listed is taken to have
 * the default. `ZERO_CONTEXT_WINDOW` (RunLimits.contextWindowTokens) replaces the table for every model.
 */
const WINDOWS: [prefix: string, tokens: number][] = [['claude-', 200_000]];

export const DEFAULT_CONTEXT_WINDOW = 200_000;

export function contextWindowOf(model: string, override = 0): number {
  if (override > 0) return override;
  const at = model.indexOf(':');
  const provider = at > 0 ? model.slice(0, at) : undefined;
  const id = model.slice(at + 1);
  const copilot = COPILOT_MODELS[id]?.contextWindow ?? (provider === 'copilot' ? COPILOT_CONTEXT_WINDOW : undefined);
  if (copilot) return copilot;
  return WINDOWS.find(([prefix]) => id.startsWith(prefix))?.[1] ?? DEFAULT_CONTEXT_WINDOW;
}
