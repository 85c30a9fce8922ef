import type { Usage } from '../wire';

/** Usage of nothing yet. */
export const zeroUsage = (): Usage => ({ input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, cost_usd: 0 });

/** Adds `from` into `into`; dollars are kept to 1e-8 so sums do not drift. */
export function addUsage(into: Usage, from: Usage): Usage {
  into.input_tokens += from.input_tokens;
  into.output_tokens += from.output_tokens;
  into.cache_read_input_tokens += from.cache_read_input_tokens;
  into.cache_creation_input_tokens += from.cache_creation_input_tokens;
  into.cost_usd = Math.round((into.cost_usd + from.cost_usd) * 1e8) / 1e8;
  // One unpriced call makes the total a lower bound.
  if (from.cost_known === false) into.cost_known = false;
  return into;
}
