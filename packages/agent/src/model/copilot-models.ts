/**
 * The models Zero knows GitHub Copilot to serve, with the input tokens Copilot accepts for each
 * (XZatoma's table). Copilot serves others too: they are sent as named, with `COPILOT_CONTEXT_WINDOW`.
 */
export const COPILOT_MODELS: Readonly<Record<string, { contextWindow: number }>> = {
  'gpt-5-mini': { contextWindow: 128_000 },
  'gpt-4o-mini': { contextWindow: 128_000 },
};

/** Copilot caps the prompt of the models it serves at 128k tokens: a model not in the table is taken to have that. */
export const COPILOT_CONTEXT_WINDOW = 128_000;
