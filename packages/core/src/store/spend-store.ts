import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { BudgetScope, Usage } from '../wire';
import { spendCounterItem, type SpendCounter } from './items/spend-counter';
import { keys } from './keys';
import type { ItemKey } from './stored-item';
import { Table } from './table';

/** One spend counter: a session's, or a user's or the deployment's for one UTC day (`YYYY-MM-DD`). */
export type SpendScope = { scope: 'session'; sessionId: string } | { scope: 'user'; userId: string; day: string } | { scope: 'deployment'; day: string };

/** Integer micro-dollars of a cost in dollars: money is never summed as floats. */
export const toMicros = (usd: number) => Math.round(usd * 1_000_000);
export const toUsd = (micros: number) => micros / 1_000_000;

/** The UTC day of a time, as the day counters are keyed. */
export const dayOf = (at: Date = new Date()) => at.toISOString().slice(0, 10);

export function spendKey(scope: SpendScope): ItemKey {
  if (scope.scope === 'session') return keys.sessionSpend(scope.sessionId);
  if (scope.scope === 'user') return keys.userSpend(scope.userId, scope.day);
  return keys.deploymentSpend(scope.day);
}

/**
 * The spend counters of sessions, users' days and the deployment's days. Each
 * step adds to each of its scopes with one atomic `ADD` (single-item updates:
 * the local DynamoDB has no transactions), which answers the new totals, so a
 * run learns what every scope has spent without reading.
 */
export class SpendStore {
  private readonly items: Table;
  /** DynamoDB requests sent, for the benchmark. */
  requests = 0;

  constructor(db: DynamoDBDocumentClient, table: string) {
    this.items = new Table(db, table);
  }

  async read(scope: SpendScope): Promise<SpendCounter> {
    this.requests++;
    const item = await this.items.get(spendKey(scope), { consistent: true });
    return item ? spendCounterItem.decode(item) : {};
  }

  /** Adds a model call's usage to a scope; answers the scope's totals after it. */
  async add(scope: SpendScope, usage: Usage): Promise<SpendCounter> {
    this.requests++;
    const attributes = await this.items.update(spendKey(scope), {
      set: 'SET v = :v ADD cost_micros :cost, input_tokens :in, output_tokens :out, cache_read_input_tokens :read, cache_creation_input_tokens :write, calls :one',
      values: {
        ':v': spendCounterItem.version,
        ':cost': toMicros(usage.cost_usd),
        ':in': usage.input_tokens,
        ':out': usage.output_tokens,
        ':read': usage.cache_read_input_tokens,
        ':write': usage.cache_creation_input_tokens,
        ':one': 1,
      },
      returns: 'ALL_NEW',
    });
    return spendCounterItem.decode(attributes ?? {});
  }

  /** Sets (or with `undefined`, removes) the limit kept on a scope's item; answers the item after it. */
  async setLimit(scope: SpendScope, limitMicros: number | undefined, by: string): Promise<SpendCounter> {
    this.requests++;
    const attributes = await this.items.update(spendKey(scope), {
      set: limitMicros === undefined ? 'SET v = :v, limit_set_by = :by, limit_set_at = :at REMOVE limit_micros' : 'SET v = :v, limit_micros = :limit, limit_set_by = :by, limit_set_at = :at',
      values: { ':v': spendCounterItem.version, ':by': by, ':at': new Date().toISOString(), ...(limitMicros === undefined ? {} : { ':limit': limitMicros }) },
      returns: 'ALL_NEW',
    });
    return spendCounterItem.decode(attributes ?? {});
  }

  /** A user's or the deployment's day counters from `from` to `to` (inclusive days). */
  async days(owner: { userId: string } | 'deployment', from: string, to: string): Promise<{ day: string; counter: SpendCounter }[]> {
    this.requests++;
    const pk = owner === 'deployment' ? keys.deploymentSpend(from).pk : keys.userSpend(owner.userId, from).pk;
    const items = await this.items.query({ pk, between: [`${keys.spendPrefix}${from}`, `${keys.spendPrefix}${to}`], consistent: true });
    return items.map((item) => ({ day: String(item.sk).slice(keys.spendPrefix.length), counter: spendCounterItem.decode(item) }));
  }
}
