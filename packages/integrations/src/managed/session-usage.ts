import type { Usage } from '@zero/agent/wire';
import type { LogRecord } from '@zero/runtime/store/items/log-record';

/** A session's cumulative usage as the Managed Agents API shows it (`BetaManagedAgentsSessionUsage`). */
export interface ManagedSessionUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  /** Zero's prompt cache entries live five minutes (the API's default `ephemeral` TTL). */
  cache_creation: { ephemeral_5m_input_tokens: number };
  /** At list prices, in US cents; absent while a call ran on a model Zero has no price for. */
  list_cost?: { amount: string; currency: 'USD' };
}

/**
 * Sums the usage every finished run of a session recorded at its end. A delegated
 * (child) run's usage is already in its parent's, so only top-level runs count; a
 * run still going or waiting adds its usage when it ends.
 */
export function managedSessionUsage(records: readonly LogRecord[]): ManagedSessionUsage {
  return sumManagedUsage(records.flatMap((record) => (record.kind === 'run_end' && !record.parent_run_id ? [record.usage] : [])));
}

/** The runs' usages summed as the API shows a session's (`list_cost` in US cents, absent when a call was unpriced). */
export function sumManagedUsage(usages: Iterable<Usage>): ManagedSessionUsage {
  let input = 0;
  let output = 0;
  let cacheRead = 0;
  let cacheWrite = 0;
  let usd = 0;
  let priced = true;
  for (const usage of usages) {
    input += usage.input_tokens;
    output += usage.output_tokens;
    cacheRead += usage.cache_read_input_tokens;
    cacheWrite += usage.cache_creation_input_tokens;
    usd += usage.cost_usd;
    if (usage.cost_known === false) priced = false;
  }
  return {
    input_tokens: input,
    output_tokens: output,
    cache_read_input_tokens: cacheRead,
    cache_creation: { ephemeral_5m_input_tokens: cacheWrite },
    ...(priced ? { list_cost: { amount: String(Math.round(usd * 100)), currency: 'USD' as const } } : {}),
  };
}
