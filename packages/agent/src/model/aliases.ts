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

/** How much a task needs: an agent or a delegation may ask for a tier instead of a model. */
export const MODEL_TIERS = ['light', 'standard', 'heavy'] as const;
export type ModelTier = (typeof MODEL_TIERS)[number];
/** The deployment's model of each tier (`ZERO_MODEL_TIERS`); a tier it does not map runs on the default model. */
export type ModelTiers = Partial<Record<ModelTier, string>>;

export function tierModel(tier: ModelTier, tiers: ModelTiers, defaultModel: string): string {
  return resolveModel(tiers[tier], defaultModel);
}

/** `light=haiku,heavy=opus` (models with or without their provider). */
export function tiersFromEnv(raw: string | undefined): ModelTiers {
  const tiers: ModelTiers = {};
  for (const entry of (raw ?? '').split(',').map((s) => s.trim()).filter(Boolean)) {
    const [tier = '', model = ''] = entry.split(/=(.*)/).map((s) => s.trim());
    if (!(MODEL_TIERS as readonly string[]).includes(tier) || !model) {
      throw new Error(`ZERO_MODEL_TIERS: "${entry}" is not tier=model with a tier of ${MODEL_TIERS.join(', ')}`);
    }
    tiers[tier as ModelTier] = model;
  }
  return tiers;
}
