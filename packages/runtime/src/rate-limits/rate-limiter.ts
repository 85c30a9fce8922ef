import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ZeroError } from '@zero/agent/errors';
import { keys } from '../store/keys';
import { Table } from '../store/table';
import type { RateLimits } from './limits';

export type RateScope = 'credential' | 'session' | 'hook' | 'deployment' | 'host';

const LIMIT_OF = { credential: 'perCredential', session: 'perSession', hook: 'perHook', deployment: 'global', host: 'perHost' } as const;
const WORDS = { credential: 'this credential', session: 'this session', hook: 'this webhook', deployment: 'this deployment', host: 'this host' } as const;

/**
 * Fixed-window counters in DynamoDB, shared by every instance: a request adds
 * one to its scope's item for the current window with a single conditional
 * `ADD` (single-item: the local DynamoDB has no transactions), refused when the
 * count has reached the limit. An in-memory limit would be multiplied by the
 * number of Lambda instances. Items carry `ttl` (epoch seconds) so that
 * DynamoDB's TTL removes old windows.
 */
export class RateLimiter {
  private readonly items: Table;
  readonly windowMs: number;

  constructor(
    db: DynamoDBDocumentClient,
    table: string,
    readonly limits: RateLimits,
  ) {
    this.items = new Table(db, table);
    this.windowMs = limits.windowMs ?? 60_000;
  }

  /** Counts a request of `id` in `scope`; throws 429 `rate_limited` with `retry_after_s` when the window's count is spent. */
  async take(scope: RateScope, id: string): Promise<void> {
    const limit = this.limits[LIMIT_OF[scope]];
    if (limit === undefined) return;
    const now = Date.now();
    const start = now - (now % this.windowMs);
    const end = start + this.windowMs;
    const counted = await this.items.update(keys.rateWindow(`${scope}:${id}`, start), {
      set: 'ADD n :one SET #ttl = :ttl',
      condition: 'attribute_not_exists(n) OR n < :limit',
      names: { '#ttl': 'ttl' },
      values: { ':one': 1, ':limit': limit, ':ttl': Math.ceil(end / 1000) + 60 },
    });
    if (counted) return;
    const retryAfterS = Math.max(1, Math.ceil((end - now) / 1000));
    const who = scope === 'host' ? `host ${id}` : WORDS[scope];
    throw new ZeroError('rate_limited', `${who} may ${scope === 'host' ? 'be fetched' : 'make'} ${limit} ${scope === 'host' ? 'times' : 'requests'} per ${this.windowMs / 1000} s; try again in ${retryAfterS} s`, {
      limit: scope,
      retry_after_s: retryAfterS,
    });
  }
}
