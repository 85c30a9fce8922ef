import { describe, expect, it } from 'vitest';
import { secretReflections } from '../../../../tests/support/secret-reflections';
import { SecretScrubber } from './secret-scrubber';

const SECRET = 'ghp_Top/Secret+Token&<0123456789>"abc\'';

describe('SecretScrubber', () => {
  it('removes a secret in every encoding a server reflects it in, inside surrounding text', () => {
    const scrubber = new SecretScrubber().add(SECRET, 'ZERO_HTTP_SECRET_API');
    for (const { encoding, text, core } of secretReflections(SECRET)) {
      const scrubbed = scrubber.scrub(`before ${text} after`);
      expect({ encoding, scrubbed }).toEqual({ encoding, scrubbed: expect.stringContaining('[secret ZERO_HTTP_SECRET_API]') });
      expect({ encoding, scrubbed }).toEqual({ encoding, scrubbed: expect.not.stringContaining(core) });
    }
  });

  it('takes the values it learns as it goes, names each one, and leaves other text alone', () => {
    const scrubber = new SecretScrubber().add('first-secret-value-0001', 'ZERO_MCP_SECRET_A');
    expect(scrubber.scrub('x first-secret-value-0001 y second-token-value-0002')).toBe('x [secret ZERO_MCP_SECRET_A] y second-token-value-0002');
    scrubber.add('second-token-value-0002');
    expect(scrubber.scrub('x first-secret-value-0001 y second-token-value-0002')).toBe('x [secret ZERO_MCP_SECRET_A] y [redacted]');
    expect(scrubber.scrub('nothing secret, 0123 abcdef, %41')).toBe('nothing secret, 0123 abcdef, %41');
  });

  it('scrubs every string of a JSON value, keys included, and returns a copy', () => {
    const scrubber = new SecretScrubber().add(SECRET, 'S');
    const hex = Buffer.from(SECRET).toString('hex');
    const schema = { type: 'object', properties: { [SECRET]: { description: `token ${hex}`, enum: [SECRET, 3] } } };
    expect(scrubber.scrubJson(schema)).toEqual({ type: 'object', properties: { '[secret S]': { description: 'token [secret S]', enum: ['[secret S]', 3] } } });
    expect(Object.keys(schema.properties)).toEqual([SECRET]);
  });
});
