import { createHash } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ZeroError } from '@zero/agent/errors';
import type { LoadRateLimiter } from '../rate-limits/limits';
import { Table } from '../store/table';

/**
 * What web_fetch asks of the deployment beside the network (a tool service): results
 * cached in the store for a configurable time, so every instance shares them, and a
 * rate limit per host on the fetches that do go out. Must not throw: a store that
 * cannot be read is a miss, one that cannot be written caches nothing.
 */
export interface WebFetchCache {
  /** The result of the same fetch (URL, selector, size) made less than the TTL ago, if any. */
  cached(request: unknown): Promise<string | undefined>;
  /** Keeps a successful result for the TTL. */
  keep(request: unknown, content: string): Promise<void>;
  /** Counts a fetch of `host`; why it may not go out now (the host's limit is spent), or undefined. */
  admitHost(host: string): Promise<string | undefined>;
}

/** The cache as a DynamoDB item per fetch (`WEBCACHE#<sha256 of the request>`), expired by its own time and DynamoDB's TTL. */
export class StoredWebFetchCache implements WebFetchCache {
  private readonly items: Table;

  constructor(
    db: DynamoDBDocumentClient,
    table: string,
    /** Seconds a result is served from the cache (`ZERO_WEB_CACHE_TTL_S`); 0: nothing is cached. */
    private readonly ttlS: number,
    private readonly rateLimits?: LoadRateLimiter,
  ) {
    this.items = new Table(db, table);
  }

  async cached(request: unknown): Promise<string | undefined> {
    if (this.ttlS <= 0) return undefined;
    const item = await this.items.get(keyOf(request)).catch(() => undefined);
    return item && typeof item.content === 'string' && Number(item.expires_at) > Date.now() ? item.content : undefined;
  }

  async keep(request: unknown, content: string): Promise<void> {
    if (this.ttlS <= 0) return;
    const expires = Date.now() + this.ttlS * 1000;
    await this.items.put({ ...keyOf(request), content, expires_at: expires, ttl: Math.ceil(expires / 1000) + 60 }).catch(() => undefined);
  }

  async admitHost(host: string): Promise<string | undefined> {
    try {
      await (await this.rateLimits?.())?.take('host', host);
      return undefined;
    } catch (error) {
      if (ZeroError.isInstance(error) && error.code === 'rate_limited') return `web_fetch was not run: ${error.message}.`;
      return undefined;
    }
  }
}

const keyOf = (request: unknown) => ({ pk: `WEBCACHE#${createHash('sha256').update(JSON.stringify(request)).digest('base64url')}`, sk: 'RESULT' });
