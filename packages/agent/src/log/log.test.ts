import { afterEach, describe, expect, it, vi } from 'vitest';
import { addLogSecrets, errorText, log } from './log';

function captureStderr(during: () => void): string {
  const lines: string[] = [];
  const spies = (['warn', 'error'] as const).map((level) => vi.spyOn(console, level).mockImplementation((...args: unknown[]) => void lines.push(String(args[0]))));
  try {
    during();
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
  return lines.join('\n');
}

describe('the logger', () => {
  afterEach(() => {
    delete process.env.ZERO_LOG_LEVEL;
  });

  it("redacts the deployment's secrets and Anthropic-shaped keys inside an error's message and stack", () => {
    addLogSecrets(['provider-secret-0123456789']);
    const error = new Error('upstream said: bad key provider-secret-0123456789 (also sk-ant-api03-abcdefghijklmnop)');
    const line = JSON.parse(captureStderr(() => log.error('model call failed', { session_id: 's1', error: errorText(error) })));
    expect(line).toMatchObject({ level: 'error', msg: 'model call failed', session_id: 's1', time: expect.any(String) });
    expect(line.error).toContain('upstream said: bad key [redacted] (also [redacted])');
    expect(JSON.stringify(line)).not.toMatch(/provider-secret|sk-ant-api03/);
  });

  it('cuts a long field and writes nothing under ZERO_LOG_LEVEL', () => {
    const long = JSON.parse(captureStderr(() => log.warn('long', { detail: 'x'.repeat(10_000) })));
    expect(long.detail.length).toBeLessThan(2_100);
    process.env.ZERO_LOG_LEVEL = 'error';
    expect(captureStderr(() => log.warn('quiet'))).toBe('');
  });
});
