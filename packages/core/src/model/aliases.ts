/** Model aliases usable in agent frontmatter, as Claude Code subagents use them. */
export const MODEL_ALIASES: Record<string, string> = {
  sonnet: 'claude-sonnet-4-6',
  opus: 'claude-opus-4-7',
  haiku: 'claude-haiku-4-5',
};

export const DEFAULT_MODEL = 'claude-sonnet-4-6';

export function resolveModel(alias: string | undefined, fallback: string): string {
  if (!alias) return fallback;
  return MODEL_ALIASES[alias] ?? alias;
}
