import { describe, expect, it } from 'vitest';
import { loadRateLimiter, rateLimitsFromEnv } from './limits';

describe('rate limit settings', () => {
  it('reads whole numbers per minute; unset is no limit', () => {
    expect(rateLimitsFromEnv({ ZERO_RATE_LIMIT_PER_MINUTE: '60', ZERO_WEB_FETCH_PER_HOST_PER_MINUTE: '5' })).toEqual({
      perCredential: 60,
      perSession: undefined,
      perHook: undefined,
      global: undefined,
      perHost: 5,
    });
  });

  it('stops the start on a value that is not a positive whole number, naming the variable', () => {
    for (const raw of ['0', '1.5', '-3', 'lots']) {
      expect(() => rateLimitsFromEnv({ ZERO_RATE_LIMIT_SESSION_PER_MINUTE: raw })).toThrow(`ZERO_RATE_LIMIT_SESSION_PER_MINUTE must be a positive whole number of requests per minute, got "${raw}"`);
    }
  });

  it('costs nothing when no limit is set: there is no limiter to load at all', () => {
    expect(loadRateLimiter({} as never, 't', rateLimitsFromEnv({}))).toBeUndefined();
    expect(loadRateLimiter({} as never, 't', undefined)).toBeUndefined();
    expect(typeof loadRateLimiter({} as never, 't', { global: 10 })).toBe('function');
  });
});
