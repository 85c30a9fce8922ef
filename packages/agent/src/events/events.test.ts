import { describe, expect, it } from 'vitest';
import { compareEventPositions, formatEventId, parseEventId } from './ids';
import { addUsage, zeroUsage } from './usage';

describe('event ids', () => {
  it('round-trip "<seq>.<index>" and order by batch, then index', () => {
    expect(formatEventId({ seq: 12, index: 3 })).toBe('12.3');
    expect(parseEventId('12.3')).toEqual({ seq: 12, index: 3 });
    const ids = ['2.0', '1.10', '1.2', '10.0'].map((id) => parseEventId(id)!);
    expect(ids.sort(compareEventPositions).map(formatEventId)).toEqual(['1.2', '1.10', '2.0', '10.0']);
  });

  it('reads a bare batch number as the whole batch (after its last event)', () => {
    const whole = parseEventId('7')!;
    expect(whole.seq).toBe(7);
    expect(compareEventPositions({ seq: 7, index: 999_999 }, whole)).toBeLessThan(0);
    expect(compareEventPositions(whole, { seq: 8, index: 0 })).toBeLessThan(0);
  });

  it('treats anything else (a Last-Event-ID a client made up) as absent, not as an error', () => {
    for (const id of ['', null, undefined, 'abc', '1.2.3', '-1', '1.', '9999999999999', '1.1234567']) expect(parseEventId(id)).toBeUndefined();
    expect(parseEventId(' 4.1 ')).toEqual({ seq: 4, index: 1 });
  });
});

describe('usage sums', () => {
  it('adds every counter and keeps dollars to 1e-8 so long sums do not drift', () => {
    const total = zeroUsage();
    for (let i = 0; i < 1000; i++) addUsage(total, { input_tokens: 1, output_tokens: 2, cache_read_input_tokens: 3, cache_creation_input_tokens: 4, cost_usd: 0.1 });
    expect(total).toEqual({ input_tokens: 1000, output_tokens: 2000, cache_read_input_tokens: 3000, cache_creation_input_tokens: 4000, cost_usd: 100 });
  });

  it('marks the total a lower bound once one call was unpriced', () => {
    const total = addUsage(zeroUsage(), { ...zeroUsage(), cost_usd: 1, cost_known: false });
    addUsage(total, { ...zeroUsage(), cost_usd: 1 });
    expect(total.cost_known).toBe(false);
    expect(addUsage(zeroUsage(), zeroUsage()).cost_known).toBeUndefined();
  });
});
