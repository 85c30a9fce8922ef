import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { TEST_API_KEY, send, startHarness, type Harness } from './support/harness';

/** Every line this process logs (through the console, as Lambda reads it) while `during` runs. */
async function captureOutput(during: () => Promise<void>): Promise<string> {
  const lines: string[] = [];
  const spies = (['log', 'info', 'warn', 'error'] as const).map((level) => vi.spyOn(console, level).mockImplementation((...args: unknown[]) => void lines.push(args.map(String).join(' '))));
  try {
    await during();
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
  return lines.join('\n');
}

const MESSAGE = 'please look at invoice INV-MESSAGE-BODY-7731';
const TOOL_INPUT = 'TOOL-INPUT-SECRET-4242';

describe('structured logs', () => {
  let h: Harness;
  let level: string | undefined;
  beforeAll(async () => {
    level = process.env.ZERO_LOG_LEVEL;
    process.env.ZERO_LOG_LEVEL = 'info';
    h = await startHarness();
  });
  afterAll(async () => {
    process.env.ZERO_LOG_LEVEL = level;
    await h.close();
  });

  it('writes a JSON line per request and per run end, with no key, message body or tool input in any line', async () => {
    const alice = await h.userHeaders('alice');
    const key = alice.authorization!.slice('Bearer '.length);
    let sessionId = '';
    const output = await captureOutput(async () => {
      h.fake.script({ toolCalls: [{ name: 'echo', input: { text: TOOL_INPUT } }], usage: { input_tokens: 1000, output_tokens: 200 } }, { text: 'done', usage: { input_tokens: 1100, output_tokens: 20 } });
      const chat = await send(h, 'POST', '/chat', alice, { agent_id: 'tester', message: MESSAGE });
      expect(chat.json.status).toBe('completed');
      sessionId = chat.json.session_id;
      expect((await send(h, 'GET', `/sessions/${sessionId}`, alice)).status).toBe(200);
      // A refused credential and a credential in a URL that does not take one: logged without either.
      expect((await send(h, 'GET', '/sessions', { authorization: `Bearer ${key}x` })).status).toBe(401);
      expect((await fetch(`${h.url}/api/v2/sessions?access_token=${key}`)).status).toBe(401);
    });

    const lines = output.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line));
    const requests = lines.filter((line) => line.msg === 'request');
    expect(requests).toContainEqual(
      expect.objectContaining({ level: 'info', method: 'POST', route: '/api/v2/chat', status: 200, user_id: 'alice', session_id: sessionId, run_id: expect.stringMatching(/^run_/), duration_ms: expect.any(Number) }),
    );
    expect(requests).toContainEqual(expect.objectContaining({ method: 'GET', route: '/api/v2/sessions/:id', status: 200, user_id: 'alice', session_id: sessionId }));
    expect(requests.filter((line) => line.status === 401)).toHaveLength(2);
    expect(lines).toContainEqual(
      expect.objectContaining({ msg: 'run end', session_id: sessionId, user_id: 'alice', agent_id: 'tester', status: 'completed', steps: 2, input_tokens: 2100, output_tokens: 220, cost_usd: expect.any(Number) }),
    );

    for (const secret of [key, TEST_API_KEY, 'INV-MESSAGE-BODY-7731', TOOL_INPUT]) expect(output).not.toContain(secret);
  });
});
