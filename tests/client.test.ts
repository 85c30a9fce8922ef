import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ZeroApiError, ZeroClient, ZeroConnectionError, type ReceivedEvent } from '@zero/client';
import { DEV_KEY, startHarness, type Harness } from './support/harness';

describe('@zero/client against a real Zero', () => {
  let h: Harness;
  let client: ZeroClient;
  beforeAll(async () => {
    h = await startHarness();
    client = new ZeroClient({ url: h.url, key: DEV_KEY });
  });
  afterAll(() => h.close());
  beforeEach(() => h.fake.reset());

  it('streams a run, parsed with the wire schemas, and ends at its done', async () => {
    h.fake.script({ text: 'Hello from the client' });
    const stream = client.chatStream({ agent_id: 'tester', message: 'hi' });
    const events: ReceivedEvent[] = [];
    for await (const received of stream) events.push(received);
    expect(events[0]!.event).toMatchObject({ type: 'start', agent_id: 'tester' });
    expect(events.filter((e) => e.event.type === 'text').map((e) => (e.event as { delta: string }).delta).join('')).toBe('Hello from the client');
    expect(events.at(-1)!.event).toMatchObject({ type: 'done', status: 'completed' });
    expect(stream.sessionId).toBeTruthy();
    expect(stream.lastEventId).toBe(events.at(-1)!.id);
    const detail = await client.getSession(stream.sessionId!);
    expect(detail.history.map((r) => r.kind)).toEqual(['user_message', 'assistant', 'run_end']);
  });

  it("a refusal carries Zero's error body: status, code, message and field", async () => {
    const error = await client.chat({ message: 'hi', agent_id: 'no-such-agent' }).catch((e: unknown) => e);
    expect(ZeroApiError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ status: 404, code: 'agent_not_found' });
    const bad = await new ZeroClient({ url: h.url, key: 'zk_wrong' }).listSessions().catch((e: unknown) => e);
    expect(bad).toMatchObject({ status: 401, code: 'unauthorized' });
  });

  it('an unreachable server is a connection error naming the URL', async () => {
    const gone = new ZeroClient({ url: 'http://127.0.0.1:9', key: DEV_KEY });
    const error = await gone.listAgents().catch((e: unknown) => e);
    expect(ZeroConnectionError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('http://127.0.0.1:9');
    expect(await gone.health()).toBe(false);
  });

  it('a server restarted mid-run: the stream reconnects with Last-Event-ID, without repeating or losing text', async () => {
    const words = Array.from({ length: 30 }, (_, i) => `w${i} `);
    h.fake.script({ text: words, deltaDelayMs: 40 });
    let reconnects = 0;
    const stream = client.chatStream({ agent_id: 'tester', message: 'count' }, { onReconnect: () => reconnects++ });
    let text = '';
    let restarted: Promise<void> | undefined;
    for await (const { event } of stream) {
      if (event.type === 'text') text += event.delta;
      if (event.type === 'text' && !restarted && text.includes('w5 ')) restarted = h.restartServer({ samePort: true, downMs: 300 });
      if (event.type === 'done') expect(event.status).toBe('completed');
    }
    await restarted;
    expect(reconnects).toBeGreaterThan(0);
    expect(text).toBe(words.join(''));
  });
});
