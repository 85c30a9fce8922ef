import { describe, expect, it } from 'vitest';
import { PromptCache, billOf } from './prompt-cache';

const system = 'S'.repeat(8000); // 2,000 tokens at 4 characters per token
const marked = { type: 'ephemeral' };
const user = (text: string, breakpoint = false) => ({ role: 'user', content: [{ type: 'text', text, ...(breakpoint ? { cache_control: marked } : {}) }] });
const assistant = (text: string) => ({ role: 'assistant', content: [{ type: 'text', text }] });

describe('the simulated prompt cache', () => {
  it('writes a marked prefix once, then reads it', () => {
    const cache = new PromptCache();
    const request = { model: 'claude-sonnet-4-6', system: [{ type: 'text', text: system, cache_control: marked }], messages: [user('hi')] };
    const first = cache.account(request);
    expect(first.cache_read_input_tokens).toBe(0);
    expect(first.cache_creation_input_tokens).toBeGreaterThanOrEqual(2000);
    const second = cache.account(request);
    expect(second).toEqual({ input_tokens: first.input_tokens, cache_read_input_tokens: first.cache_creation_input_tokens, cache_creation_input_tokens: 0 });
  });

  it('reads the previous turn and writes only what was added, when the conversation carries a breakpoint', () => {
    const cache = new PromptCache();
    const base = { model: 'claude-sonnet-4-6', system: [{ type: 'text', text: system, cache_control: marked }] };
    const turn1 = cache.account({ ...base, messages: [user('one', true)] });
    const turn2 = cache.account({ ...base, messages: [user('one'), assistant('answer'), user('two', true)] });
    expect(turn2.cache_read_input_tokens).toBe(turn1.cache_creation_input_tokens);
    expect(turn2.cache_creation_input_tokens).toBe(cache.tokensFor('assistant text answer'.length) + cache.tokensFor('user text two'.length));
    expect(turn2.input_tokens).toBe(0);
  });

  it('caches nothing without a breakpoint, and treats top-level cache_control as one on the last block', () => {
    const cache = new PromptCache();
    const plain = { model: 'claude-sonnet-4-6', system, messages: [user('hi')] };
    expect(cache.account(plain).cache_creation_input_tokens).toBe(0);
    expect(cache.account(plain).cache_read_input_tokens).toBe(0);
    const auto = { ...plain, cache_control: marked };
    const written = cache.account(auto).cache_creation_input_tokens;
    expect(written).toBeGreaterThan(2000);
    expect(cache.account(auto).cache_read_input_tokens).toBe(written);
  });

  it('forgets entries after five minutes, ignores short prefixes, and keys on the model', () => {
    let now = 0;
    const cache = new PromptCache({ now: () => now });
    const request = { model: 'claude-sonnet-4-6', system: [{ type: 'text', text: system, cache_control: marked }], messages: [user('hi')] };
    cache.account(request);
    expect(cache.account({ ...request, model: 'claude-opus-4-7' }).cache_read_input_tokens).toBe(0);
    now = 5 * 60_000 + 1;
    expect(cache.account(request).cache_read_input_tokens).toBe(0);
    const short = { model: 'claude-sonnet-4-6', system: [{ type: 'text', text: 'short', cache_control: marked }], messages: [user('hi')] };
    expect(cache.account(short).cache_creation_input_tokens).toBe(0);
  });

  it('bills at list prices', () => {
    const bill = billOf('claude-sonnet-4-6', { input_tokens: 1_000_000, cache_creation_input_tokens: 1_000_000, cache_read_input_tokens: 1_000_000, output_tokens: 1_000_000 });
    expect(bill.usd).toBeCloseTo(3 + 3.75 + 0.3 + 15, 8);
  });
});
