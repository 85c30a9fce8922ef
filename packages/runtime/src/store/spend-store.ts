import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { BudgetScope, Usage } from '@zero/agent/wire';
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

/** A model call's reservation on a counter: at most what the call may cost, until when it holds (epoch ms). */
export interface SpendHold {
  id: string;
  micros: number;
  until: number;
}

const HOLD = 'hold:';

/** The holds kept on a counter item (`hold:<id>` attributes). */
function holdsOf(item: Record<string, unknown>): SpendHold[] {
  return Object.entries(item).flatMap(([name, value]) => {
    if (!name.startsWith(HOLD) || typeof value !== 'object' || value === null) return [];
    const { micros, until } = value as { micros?: unknown; until?: unknown };
    return typeof micros === 'number' && typeof until === 'number' ? [{ id: name.slice(HOLD.length), micros, until }] : [];
  });
}

/**
 * What a counter has spent plus what calls in flight hold: the figure a reservation is checked against.
 * An item written before reservations existed lacks `committed_micros` for what it had spent then; every
 * write keeps `cost + held - committed` constant, so that difference is added back.
 */
export const committedOf = (counter: SpendCounter) => (counter.cost_micros ?? 0) + (counter.held_micros ?? 0);
/** `cost + held - committed` of an item: 0 for items written since reservations, what it had spent before for older ones. */
const uncommittedOf = (counter: SpendCounter) => committedOf(counter) - (counter.committed_micros ?? 0);

/**
 * The spend counters of sessions, users' days and the deployment's days. Each
 * step adds to each of its scopes with one atomic `ADD` (single-item updates:
 * the local DynamoDB has no transactions), which answers the new totals, so a
 * run learns what every scope has spent without reading.
 *
 * A call on a scope with a limit first reserves what it may cost at most
 * (`reserve`: one conditional update, refused once spent plus held reaches the
 * limit), and its `ADD` then settles the hold (`settle`). A hold names its run
 * and expires (`until`): a process that died with calls in flight leaves holds
 * that its resumed run, or any reader after `until`, releases (`release`).
 */
export class SpendStore {
  private readonly items: Table;
  /** DynamoDB requests sent, for the benchmark. */
  requests = 0;
  /** Calls waiting in this process for holds on a counter to be settled or released, by counter key. */
  private readonly waiting = new Map<string, Set<() => void>>();

  constructor(db: DynamoDBDocumentClient, table: string) {
    this.items = new Table(db, table);
  }

  async read(scope: SpendScope): Promise<SpendCounter> {
    return (await this.inspect(scope)).counter;
  }

  /** A counter and the holds on it. */
  async inspect(scope: SpendScope): Promise<{ counter: SpendCounter; holds: SpendHold[] }> {
    this.requests++;
    const item = await this.items.get(spendKey(scope), { consistent: true });
    return item ? { counter: spendCounterItem.decode(item), holds: holdsOf(item) } : { counter: {}, holds: [] };
  }

  /** Adds a model call's usage to a scope (or `calls` calls' together); answers the scope's totals after it. */
  async add(scope: SpendScope, usage: Usage, calls = 1): Promise<SpendCounter> {
    this.requests++;
    const attributes = await this.items.update(spendKey(scope), {
      set: 'SET v = :v ADD cost_micros :cost, committed_micros :cost, input_tokens :in, output_tokens :out, cache_read_input_tokens :read, cache_creation_input_tokens :write, calls :one',
      values: { ':v': spendCounterItem.version, ...usageValues(usage), ':one': calls },
      returns: 'ALL_NEW',
    });
    this.changed(scope);
    return spendCounterItem.decode(attributes ?? {});
  }

  /**
   * Reserves `hold.micros` on a scope if what it has spent plus what calls in flight hold is below
   * `limitMicros`: answers the counter after it, or undefined when refused. `known` is the counter as last
   * read or written (for the constant `uncommittedOf`).
   */
  async reserve(scope: SpendScope, hold: SpendHold, limitMicros: number, known: SpendCounter): Promise<SpendCounter | undefined> {
    const bound = limitMicros - uncommittedOf(known);
    if (bound <= 0) return undefined;
    this.requests++;
    const attributes = await this.items.update(spendKey(scope), {
      set: 'SET v = :v, #h = :hold ADD held_micros :m, committed_micros :m',
      condition: 'attribute_not_exists(committed_micros) OR committed_micros < :bound',
      names: { '#h': `${HOLD}${hold.id}` },
      values: { ':v': spendCounterItem.version, ':hold': { micros: hold.micros, until: hold.until }, ':m': hold.micros, ':bound': bound },
      returns: 'ALL_NEW',
    });
    return attributes && spendCounterItem.decode(attributes);
  }

  /**
   * Adds a call's usage and lets go of its hold, in one update. A hold already released (it expired and a
   * reader let it go) is not let go twice: the usage is then added alone.
   */
  async settle(scope: SpendScope, hold: SpendHold, usage: Usage): Promise<SpendCounter> {
    this.requests++;
    const values = usageValues(usage);
    const attributes = await this.items.update(spendKey(scope), {
      set: 'SET v = :v REMOVE #h ADD cost_micros :cost, held_micros :unheld, committed_micros :committed, input_tokens :in, output_tokens :out, cache_read_input_tokens :read, cache_creation_input_tokens :write, calls :one',
      condition: 'attribute_exists(#h)',
      names: { '#h': `${HOLD}${hold.id}` },
      values: { ':v': spendCounterItem.version, ...values, ':unheld': -hold.micros, ':committed': values[':cost'] - hold.micros },
      returns: 'ALL_NEW',
    });
    if (!attributes) return this.add(scope, usage);
    this.changed(scope);
    return spendCounterItem.decode(attributes);
  }

  /** Lets go of a hold without usage (its call never ran, or died with its process); false when it was already gone. */
  async release(scope: SpendScope, hold: SpendHold): Promise<boolean> {
    this.requests++;
    const released = await this.items.update(spendKey(scope), {
      set: 'REMOVE #h ADD held_micros :unheld, committed_micros :unheld',
      condition: 'attribute_exists(#h)',
      names: { '#h': `${HOLD}${hold.id}` },
      values: { ':unheld': -hold.micros },
    });
    this.changed(scope);
    return released !== undefined;
  }

  /**
   * Watches a counter: `changed` resolves once a hold on it is settled or released in this process, or after
   * `ms` (another process's are seen only by reading again). Watch before reading, so no change falls between.
   */
  watch(scope: SpendScope, ms: number): { changed: Promise<void>; stop(): void } {
    const key = keyString(scope);
    const waiters = this.waiting.get(key) ?? new Set();
    this.waiting.set(key, waiters);
    let wake!: () => void;
    const changed = new Promise<void>((resolve) => (wake = resolve));
    const timer = setTimeout(wake, ms);
    const stop = () => {
      clearTimeout(timer);
      waiters.delete(wake);
      if (waiters.size === 0 && this.waiting.get(key) === waiters) this.waiting.delete(key);
      wake();
    };
    waiters.add(wake);
    void changed.then(stop);
    return { changed, stop };
  }

  private changed(scope: SpendScope): void {
    for (const wake of this.waiting.get(keyString(scope)) ?? []) wake();
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

  /**
   * Catches a day counter up with what its day's usage cells spent uncounted (`uncountedMicros`, all of it so
   * far): adds what it has not taken in yet to its spend, in one conditional update on what `known` took in,
   * so that two catching up at once add it once. Answers the counter after it, or undefined when another
   * caught it up first (read it again).
   */
  async catchUp(scope: SpendScope, uncountedMicros: number, known: SpendCounter): Promise<SpendCounter | undefined> {
    const before = known.from_usage_micros;
    const delta = Math.max(0, uncountedMicros - (before ?? 0));
    this.requests++;
    const attributes = await this.items.update(spendKey(scope), {
      set: 'SET v = :v, from_usage_micros = :taken ADD cost_micros :delta, committed_micros :delta',
      condition: before === undefined ? 'attribute_not_exists(from_usage_micros)' : 'from_usage_micros = :before',
      values: { ':v': spendCounterItem.version, ':taken': (before ?? 0) + delta, ':delta': delta, ...(before === undefined ? {} : { ':before': before }) },
      returns: 'ALL_NEW',
    });
    if (attributes) this.changed(scope);
    return attributes && spendCounterItem.decode(attributes);
  }

  /** A user's or the deployment's day counters from `from` to `to` (inclusive days). */
  async days(owner: { userId: string } | 'deployment', from: string, to: string): Promise<{ day: string; counter: SpendCounter }[]> {
    this.requests++;
    const pk = owner === 'deployment' ? keys.deploymentSpend(from).pk : keys.userSpend(owner.userId, from).pk;
    const items = await this.items.query({ pk, between: [`${keys.spendPrefix}${from}`, `${keys.spendPrefix}${to}`], consistent: true });
    return items.map((item) => ({ day: String(item.sk).slice(keys.spendPrefix.length), counter: spendCounterItem.decode(item) }));
  }
}

const keyString = (scope: SpendScope) => {
  const { pk, sk } = spendKey(scope);
  return `${pk} ${sk}`;
};

/** The update values of a call's usage (`:cost` in micro-dollars). */
function usageValues(usage: Usage) {
  return {
    ':cost': toMicros(usage.cost_usd),
    ':in': usage.input_tokens,
    ':out': usage.output_tokens,
    ':read': usage.cache_read_input_tokens,
    ':write': usage.cache_creation_input_tokens,
    ':one': 1,
  };
}
