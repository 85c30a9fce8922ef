import type { ModelUsage } from './provider';

/** USD per million tokens, list prices (5-minute cache writes). */
interface Price {
  input: number;
  output: number;
  cacheWrite: number;
  cacheRead: number;
}

const price = (input: number, output: number): Price => ({ input, output, cacheWrite: input * 1.25, cacheRead: input * 0.1 });

/** First match wins; models without an entry are priced as Sonnet and the figure is an estimate. */
const PRICES: [RegExp, Price][] = [
  [/opus-4-[01]|opus-4-2025|claude-3-opus/, price(15, 75)],
  [/opus/, price(5, 25)],
  [/haiku-3-5|3-5-haiku/, price(0.8, 4)],
  [/haiku-3|3-haiku/, price(0.25, 1.25)],
  [/haiku/, price(1, 5)],
  [/sonnet/, price(3, 15)],
];

/** Dollar cost of a call's usage at list prices. */
export function costOf(model: string, usage: ModelUsage): number {
  const p = PRICES.find(([pattern]) => pattern.test(model))?.[1] ?? price(3, 15);
  const usd =
    (usage.input_tokens * p.input +
      usage.output_tokens * p.output +
      usage.cache_creation_input_tokens * p.cacheWrite +
      usage.cache_read_input_tokens * p.cacheRead) /
    1_000_000;
  return Math.round(usd * 1e8) / 1e8;
}

/**
 * A step's cost fields: the provider's own figure when it gave one (a price table that may not know the
 * model: `cost_known: false`, counted as 0), else Claude's list prices for `model`.
 */
export function stepCost(model: string, response: { usage: ModelUsage; cost?: { usd: number; known: boolean } }): { cost_usd: number; cost_known?: false } {
  if (!response.cost) return { cost_usd: costOf(model, response.usage) };
  return { cost_usd: response.cost.usd, ...(response.cost.known ? {} : { cost_known: false as const }) };
}

/**
 * The most a call may cost at list prices: its input priced as cache writes (the dearest way to send input)
 * and `maxTokens` of output. What a budget reserves before the call (see `budgets/`).
 */
export function maxCostOf(model: string, inputTokens: number, maxTokens: number): number {
  const p = PRICES.find(([pattern]) => pattern.test(model))?.[1] ?? price(3, 15);
  return Math.ceil(((inputTokens * p.cacheWrite + maxTokens * p.output) / 1_000_000) * 1e6) / 1e6;
}
