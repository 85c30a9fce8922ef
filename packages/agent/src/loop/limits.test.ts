import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS, limitsFromEnv } from './limits';

describe('limitsFromEnv', () => {
  it('answers the base limits when no variable overrides them, as a copy', () => {
    const limits = limitsFromEnv({});
    expect(limits).toEqual(DEFAULT_LIMITS);
    expect(limits).not.toBe(DEFAULT_LIMITS);
  });

  it('takes an override and still refuses one out of range, naming the field', () => {
    expect(limitsFromEnv({ ZERO_MAX_STEPS: '7' }).maxSteps).toBe(7);
    expect(() => limitsFromEnv({ ZERO_MAX_STEPS: 'seven' })).toThrow(/ZERO_MAX_STEPS/);
    expect(() => limitsFromEnv({ ZERO_MAX_STEPS: '0' })).toThrow(/maxSteps/);
    expect(() => limitsFromEnv({ ZERO_COMPACT_AT_PERCENT: '101' })).toThrow(/compactAtPercent/);
  });
});
