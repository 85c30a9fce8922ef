import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { syncAgents } from '../local/stack';
import { CopilotToken } from '@zero/agent/model/copilot';
import { FakeOpenAI } from './support/fake-openai';
import { getJson, startHarness, type Harness } from './support/harness';
import { chatStream } from './support/sse';

const GITHUB_TOKEN = 'ghu_fakeCopilotSeat0123456789abcdef';

/** Every line the server logs while `during` runs. */
async function logsDuring<T>(during: () => Promise<T>): Promise<{ result: T; lines: string[] }> {
  const lines: string[] = [];
  const spies = (['log', 'info', 'warn', 'error'] as const).map((level) => vi.spyOn(console, level).mockImplementation((...args: unknown[]) => void lines.push(args.map(String).join(' '))));
  try {
    return { result: await during(), lines };
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
}

describe('an agent on GitHub Copilot', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ copilot: { githubToken: GITHUB_TOKEN } });
    const dir = mkdtempSync(join(tmpdir(), 'zero-copilot-'));
    writeFileSync(join(dir, 'pilot.md'), `---\nname: pilot\ndescription: Runs on Copilot.\nmodel: copilot:gpt-5-mini\ntools: echo\n---\n\n## Role\n\nYou are pilot.\n`);
    await syncAgents(h.stack.store, dir);
  });
  afterAll(() => h.close());
  // A new server per test: each starts without a Copilot token.
  beforeEach(() => h.restartServer());
  afterEach(() => h.copilot!.reset());
  const copilot = () => h.copilot!;

  it('exchanges the GitHub token for a Copilot token once, and sends every call with it while it is fresh', async () => {
    copilot().script({ toolCalls: [{ id: 'call_1', name: 'echo', input: { text: 'hi' } }] }, { text: 'done' }, { text: 'again' });
    const first = await chatStream(h.url, { agent_id: 'pilot', message: 'say hi' });
    await chatStream(h.url, { agent_id: 'pilot', message: 'once more', session_id: (first.events[0] as { session_id: string }).session_id });

    expect(first.events.at(-1)).toMatchObject({ type: 'done', status: 'completed' });
    expect(copilot().exchanges).toEqual([{ authorization: `token ${GITHUB_TOKEN}`, editorVersion: expect.any(String), issued: expect.any(String) }]);
    const issued = copilot().exchanges[0]!.issued!;
    expect(copilot().requests).toHaveLength(3);
    for (const request of copilot().requests) {
      expect(request.headers).toMatchObject({ authorization: `Bearer ${issued}`, 'copilot-integration-id': 'vscode-chat', 'editor-version': expect.any(String) });
      expect(request.body.model).toBe('gpt-5-mini');
    }
    expect(copilot().requests[1]!.body.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'call_1', content: 'echo: hi' });
  });

  it('exchanges again when the Copilot token is within a minute of its expiry', async () => {
    copilot().copilotTokenLifetime = 30;
    copilot().script({ text: 'one' }, { text: 'two' });
    await chatStream(h.url, { agent_id: 'pilot', message: 'first' });
    await chatStream(h.url, { agent_id: 'pilot', message: 'second' });

    expect(copilot().exchanges).toHaveLength(2);
    expect(copilot().requests.map((r) => r.headers.authorization)).toEqual(copilot().exchanges.map((e) => `Bearer ${e.issued}`));
  });

  it('renews a token Copilot refuses (401) once, and sends the call again', async () => {
    copilot().script({ text: 'before' }, { text: 'after' });
    await chatStream(h.url, { agent_id: 'pilot', message: 'first' });
    copilot().revokeCopilotTokens();
    const { events } = await chatStream(h.url, { agent_id: 'pilot', message: 'second' });

    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'completed' });
    expect(events.filter((e) => e.type === 'text').map((e) => (e as { delta: string }).delta).join('')).toBe('after');
    const [old, renewed] = copilot().exchanges.map((e) => `Bearer ${e.issued}`);
    // Before the revocation, the refused call, the same call with the renewed token.
    expect(copilot().requests.map((r) => r.headers.authorization)).toEqual([old, old, renewed]);
  });

  it('renews only once: a renewed token refused too ends the run with an error naming Copilot, no secret in it', async () => {
    copilot().refuseEveryCopilotToken = true;
    const { result, lines } = await logsDuring(() => chatStream(h.url, { agent_id: 'pilot', message: 'hello' }));
    const { events } = result;

    expect(events.find((e) => e.type === 'error')).toMatchObject({ code: 'model_error', message: expect.stringContaining('copilot answered 401') });
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'error' });
    // One exchange, the refused call, one renewal, the refused call again: no third try.
    expect(copilot().exchanges).toHaveLength(2);
    expect(copilot().requests.map((r) => r.headers.authorization)).toEqual(copilot().exchanges.map((e) => `Bearer ${e.issued}`));
    const session = (events[0] as { session_id: string }).session_id;
    const stored = JSON.stringify((await getJson(`${h.url}/api/v2/sessions/${session}`)).json);
    for (const secret of [GITHUB_TOKEN, ...copilot().exchanges.map((e) => e.issued!)]) {
      expect(JSON.stringify(events)).not.toContain(secret);
      expect(stored).not.toContain(secret);
      expect(lines.join('\n')).not.toContain(secret);
    }
  });

  it('says the GitHub token has no Copilot access when the exchange refuses it, without the token', async () => {
    copilot().issueCopilotTokens('ghu_someoneElsesSeat');
    copilot().revokeCopilotTokens();
    try {
      const { result, lines } = await logsDuring(() => chatStream(h.url, { agent_id: 'pilot', message: 'hello' }));
      const error = result.events.find((e) => e.type === 'error') as { message: string };
      expect(error.message).toContain("copilot's token exchange answered 401: the GitHub token (ZERO_COPILOT_GITHUB_TOKEN) is invalid or has no Copilot access");
      expect(JSON.stringify(result.events)).not.toContain(GITHUB_TOKEN);
      expect(lines.join('\n')).not.toContain(GITHUB_TOKEN);
      expect(copilot().requests).toHaveLength(0);
    } finally {
      copilot().issueCopilotTokens(GITHUB_TOKEN);
    }
  });

  it('holds a conversation to the model’s 128k-token window from the seed’s table', async () => {
    // Copilot counts 130k input tokens for the first step: inside Claude's 200k window, over gpt-5-mini's 128k.
    copilot().script({ toolCalls: [{ name: 'echo', input: { text: 'hi' } }], usage: { input_tokens: 130_000, output_tokens: 10 } }, { text: 'never sent' });
    const { events } = await chatStream(h.url, { agent_id: 'pilot', message: 'hello' });
    expect(events.find((e) => e.type === 'error')).toMatchObject({ message: expect.stringContaining("of the model's 128000") });
    expect(copilot().requests).toHaveLength(1);
  });
});

describe('the Copilot token, against the fake exchange', () => {
  let fake: FakeOpenAI;
  beforeAll(async () => (fake = (await new FakeOpenAI().start()).issueCopilotTokens(GITHUB_TOKEN)));
  afterAll(() => fake.stop());
  afterEach(() => fake.reset());

  it('makes calls that need a token at the same moment wait for one exchange', async () => {
    const token = new CopilotToken({ githubToken: GITHUB_TOKEN, tokenUrl: fake.tokenUrl });
    const all = await Promise.all(Array.from({ length: 5 }, () => token.authorization()));
    expect(fake.exchanges).toHaveLength(1);
    expect(new Set(all)).toEqual(new Set([`Bearer ${fake.exchanges[0]!.issued}`]));
  });

  it('keeps a token until GitHub’s refresh_in, then exchanges again (the clock moved, not waited for)', async () => {
    let now = Date.now();
    const token = new CopilotToken({ githubToken: GITHUB_TOKEN, tokenUrl: fake.tokenUrl }, () => now);
    const first = await token.authorization();
    now += 1499_000; // the fake says refresh_in 1500 s for a 1800 s token
    expect(await token.authorization()).toBe(first);
    now += 2_000;
    expect(await token.authorization()).not.toBe(first);
    expect(fake.exchanges).toHaveLength(2);
  });

  it('refuses an exchange answer without a token, naming the field and not echoing the body', async () => {
    fake.copilotExchangeBody = JSON.stringify({ tokn: 'tid=leaked-into-body' });
    const token = new CopilotToken({ githubToken: GITHUB_TOKEN, tokenUrl: fake.tokenUrl });
    const error = await token.authorization().then(
      () => undefined,
      (e: Error) => e,
    );
    expect(error?.message).toMatch(/^copilot's token exchange answered without a usable token \(token: /);
    expect(error?.message).not.toContain('leaked-into-body');
    expect(error?.message).not.toContain(GITHUB_TOKEN);
  });
});
