import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { RateLimiter } from './rate-limiter';

/** How many requests each scope may make per window; an absent limit is no limit. */
export interface RateLimits {
  /** Requests per window of one credential (an API key, or a JWT user) on /api/v2 (`ZERO_RATE_LIMIT_PER_MINUTE`). */
  perCredential?: number;
  /** Messages per window sent to one session (`ZERO_RATE_LIMIT_SESSION_PER_MINUTE`). */
  perSession?: number;
  /** Deliveries per window to one webhook (`ZERO_RATE_LIMIT_HOOK_PER_MINUTE`). */
  perHook?: number;
  /** Requests per window of every caller together on every door (`ZERO_RATE_LIMIT_GLOBAL_PER_MINUTE`), beside each credential's. */
  global?: number;
  /** Fetches per window of one host by web_fetch (`ZERO_WEB_FETCH_PER_HOST_PER_MINUTE`); a cached result is no fetch. */
  perHost?: number;
  /** The window, one minute unless a test wants a short one. */
  windowMs?: number;
}

/** Reads the rate limits; a value that is not a positive whole number is refused at start-up. Unset: no limit. */
export function rateLimitsFromEnv(env: Record<string, string | undefined>): RateLimits {
  const count = (name: string) => {
    const raw = env[name];
    if (raw === undefined || raw === '') return undefined;
    const value = Number(raw);
    if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive whole number of requests per minute, got "${raw}"`);
    return value;
  };
  return {
    perCredential: count('ZERO_RATE_LIMIT_PER_MINUTE'),
    perSession: count('ZERO_RATE_LIMIT_SESSION_PER_MINUTE'),
    perHook: count('ZERO_RATE_LIMIT_HOOK_PER_MINUTE'),
    global: count('ZERO_RATE_LIMIT_GLOBAL_PER_MINUTE'),
    perHost: count('ZERO_WEB_FETCH_PER_HOST_PER_MINUTE'),
  };
}

/** Loads the limiter with the first limited request: nothing of it at cold start, nothing at all when no limit is set. */
export type LoadRateLimiter = () => Promise<RateLimiter>;

export function loadRateLimiter(db: DynamoDBDocumentClient, table: string, limits: RateLimits | undefined): LoadRateLimiter | undefined {
  if (!limits || [limits.perCredential, limits.perSession, limits.perHook, limits.global, limits.perHost].every((limit) => limit === undefined)) return undefined;
  let loaded: Promise<RateLimiter> | undefined;
  return () => (loaded ??= import('./rate-limiter').then((m) => new m.RateLimiter(db, table, limits)));
}
