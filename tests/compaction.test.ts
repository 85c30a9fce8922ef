import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { historyToUIMessages } from '@zero/agent/ui';
import { getJson, postJson, startHarness, type Harness } from './support/harness';
import type { FakeRequest } from './support/fake-anthropic';
import { chatStream, type ReceivedEvent } from './support/sse';

const isSummaryCall = (request: FakeRequest) => JSON.stringify(request.body.system ?? '').includes('You compact a conversation');
const textOf = (request: FakeRequest) => JSON.stringify(request.body.messages);
/** A message of about `chars` characters that names its turn, so the test can see which turns the model is sent. */
const turnText = (n: number, chars: number) => `Turn ${n} marker-${n}-x. ${'Some context about the shop that takes room. '.repeat(Math.ceil(chars / 46))}`.slice(0, chars);

describe('compaction: a session that outgrows the context window keeps going', () => {
  let h: Harness;
  beforeAll(async () => {
    // A small window (4,000 tokens) so a few turns fill it; compaction at 80 %, keeping the last 2 turns.
    h = await startHarness({ limits: { contextWindowTokens: 4_000, compactAtPercent: 80, compactKeepTurns: 2, compactMinFreedPercent: 20 } });
  });
  afterAll(() => h.close());
  afterEach(() => h.fake.reset());

  /** The fake model answers each turn by its marker, and a summarising call with a summary naming the turns it was given. */
  const answerEveryTurn = () =>
    h.fake.respondWith((request) => {
      if (isSummaryCall(request)) {
        const seen = [...textOf(request).matchAll(/marker-(\d+)-x/g)].map((m) => m[1]);
        return { text: `- Summary of turns ${[...new Set(seen)].join(', ')}: the user described the shop.` };
      }
      const markers = [...textOf(request).matchAll(/marker-(\d+)-x/g)].map((m) => Number(m[1]));
      return { text: `Answer to turn ${Math.max(...markers)}.` };
    });

  it('compacts once before the call that would overflow, keeps answering, and the full history stays readable', async () => {
    answerEveryTurn();
    const { json } = await postJson(`${h.url}/api/v2/sessions`, { agent_id: 'tester' });
    const id = json.session.session_id as string;
    const turns: ReceivedEvent[][] = [];
    for (let n = 1; n <= 6; n++) {
      const { events } = await chatStream(h.url, { session_id: id, message: turnText(n, n === 1 ? 200 : 2_400) });
      expect(events.at(-1)).toMatchObject({ type: 'done', status: 'completed' });
      turns.push(events);
      if (events.some((e) => e.type === 'compacted')) break;
    }
    const compactedAt = turns.length;
    const compacted = turns.at(-1)!.find((e) => e.type === 'compacted') as Extract<ReceivedEvent, { type: 'compacted' }>;
    expect(compacted, 'no turn compacted the conversation').toBeDefined();
    expect(compacted.turns_folded).toBe(compactedAt - 2);
    expect(compacted.tokens_after).toBeLessThan(compacted.tokens_before * 0.8);
    // The answer still came, after the compaction.
    expect(turns.at(-1)!.filter((e) => e.type === 'text').map((e) => (e as { delta: string }).delta).join('')).toBe(`Answer to turn ${compactedAt}.`);

    // What the model was sent for that answer: the first user message, the summary fenced as data, the kept turns; not the folded ones.
    const answerCall = h.fake.requests.at(-1)!;
    expect(isSummaryCall(answerCall)).toBe(false);
    const sent = textOf(answerCall);
    expect(sent).toContain('marker-1-x');
    expect(sent).toContain('Summary of turns');
    expect(sent).toMatch(/outside-data/);
    for (let folded = 2; folded <= compactedAt - 2; folded++) expect(sent).not.toContain(`marker-${folded}-x`);
    for (let kept = compactedAt - 1; kept <= compactedAt; kept++) expect(sent).toContain(`marker-${kept}-x`);
    // The summarising call was sent the folded turns, and its cost is in the run's usage.
    const summaryCall = h.fake.requests.find(isSummaryCall)!;
    expect(textOf(summaryCall)).toContain(`marker-${compactedAt - 2}-x`);
    const done = turns.at(-1)!.at(-1) as Extract<ReceivedEvent, { type: 'done' }>;
    const summaryTokens = Math.ceil(JSON.stringify(summaryCall.body.messages).length / 4);
    expect(done.usage.input_tokens).toBeGreaterThanOrEqual(summaryTokens);

    // The next turn is answered without compacting again.
    const { events: next } = await chatStream(h.url, { session_id: id, message: turnText(compactedAt + 1, 200) });
    expect(next.some((e) => e.type === 'compacted')).toBe(false);
    expect(next.at(-1)).toMatchObject({ type: 'done', status: 'completed' });

    // Nothing was deleted: every user message is in the history, and the compaction is a record of its own.
    const session = (await getJson(`${h.url}/api/v2/sessions/${id}`)).json;
    const users = session.history.filter((r: { kind: string }) => r.kind === 'user_message');
    expect(users).toHaveLength(compactedAt + 1);
    const records = session.history.filter((r: { kind: string }) => r.kind === 'compaction');
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ turns_folded: compactedAt - 2, tokens_before: compacted.tokens_before, tokens_after: compacted.tokens_after, summary: expect.stringContaining('Summary of turns') });
    // A reloaded chat shows the compaction where it happened.
    expect(historyToUIMessages(session.history).flatMap((m) => m.parts).filter((p) => p.type === 'data-compacted')).toHaveLength(1);
  });

  it('never splits a tool call from its result: a run of tool steps is folded whole, as one turn', async () => {
    h.fake.respondWith((request, index) => {
      if (isSummaryCall(request)) return { text: '- Summary: the user asked for echoes.' };
      const last = request.body.messages.at(-1)!;
      const isToolResult = JSON.stringify(last.content).includes('tool_result');
      // A user turn gets one echo call; the result gets an answer.
      return isToolResult ? { text: 'Echoed.' } : { toolCalls: [{ name: 'echo', input: { text: `echo ${index} ${'padding '.repeat(250)}` } }] };
    });
    const { json } = await postJson(`${h.url}/api/v2/sessions`, { agent_id: 'tester' });
    const id = json.session.session_id as string;
    let compacted = false;
    for (let n = 1; n <= 8 && !compacted; n++) {
      const { events } = await chatStream(h.url, { session_id: id, message: turnText(n, 300) });
      expect(events.at(-1)).toMatchObject({ type: 'done', status: 'completed' });
      compacted = events.some((e) => e.type === 'compacted');
    }
    expect(compacted).toBe(true);
    // In every request after the compaction, each tool_result answers a tool_use sent in the same request, and vice versa.
    for (const request of h.fake.requests.filter((r) => !isSummaryCall(r))) {
      const blocks = request.body.messages.flatMap((m) => (Array.isArray(m.content) ? (m.content as { type: string; id?: string; tool_use_id?: string }[]) : []));
      const uses = new Set(blocks.filter((b) => b.type === 'tool_use').map((b) => b.id));
      const results = new Set(blocks.filter((b) => b.type === 'tool_result').map((b) => b.tool_use_id));
      for (const result of results) expect(uses.has(result)).toBe(true);
      for (const use of uses) {
        if (request !== h.fake.requests.at(-1) || results.has(use)) expect(results.has(use)).toBe(true);
      }
    }
  });
});

describe('compaction that cannot free enough', () => {
  let h: Harness;
  beforeAll(async () => {
    // Every turn kept (keep 10): nothing older can be folded, so an over-full conversation cannot be compacted.
    h = await startHarness({ limits: { contextWindowTokens: 2_000, compactAtPercent: 80, compactKeepTurns: 10, compactMinFreedPercent: 20 } });
  });
  afterAll(() => h.close());

  it('ends the run with context_exhausted instead of a call the API would refuse, and the model is not called', async () => {
    h.fake.respondWith(() => ({ text: 'Fine.' }));
    const { json } = await postJson(`${h.url}/api/v2/sessions`, { agent_id: 'tester' });
    const id = json.session.session_id as string;
    let last: ReceivedEvent[] = [];
    for (let n = 1; n <= 6; n++) {
      const before = h.fake.requests.length;
      const { events } = await chatStream(h.url, { session_id: id, message: turnText(n, 2_400) });
      last = events;
      if (events.at(-1)?.type === 'done' && (events.at(-1) as { status: string }).status === 'error') {
        expect(h.fake.requests.length).toBe(before);
        break;
      }
    }
    expect(last.find((e) => e.type === 'error')).toMatchObject({ code: 'context_exhausted', message: expect.stringMatching(/tokens of the model's 2000/) });
    expect(last.at(-1)).toMatchObject({ type: 'done', status: 'error' });
  });
});

describe('compaction that frees too little', () => {
  let h: Harness;
  beforeAll(async () => {
    // Only the latest turn is kept, and a compaction must free 60 % of the tokens: folding one earlier turn cannot.
    h = await startHarness({ limits: { contextWindowTokens: 4_000, compactAtPercent: 80, compactKeepTurns: 1, compactMinFreedPercent: 60 } });
  });
  afterAll(() => h.close());

  it('compacts, sees it freed less than ZERO_COMPACT_MIN_FREED_PERCENT, and ends the run with context_exhausted before calling the model', async () => {
    h.fake.respondWith((request) => (isSummaryCall(request) ? { text: 'Summary: the shop.' } : { text: 'Fine.' }));
    const { json } = await postJson(`${h.url}/api/v2/sessions`, { agent_id: 'tester' });
    const id = json.session.session_id as string;
    // The session's first message always stays as it is; the second turn is what a compaction can fold.
    for (const [n, chars] of [[1, 200], [2, 2_500]]) {
      const { events } = await chatStream(h.url, { session_id: id, message: turnText(n!, chars!) });
      expect(events.at(-1)).toMatchObject({ type: 'done', status: 'completed' });
    }
    expect(h.fake.requests.some(isSummaryCall)).toBe(false);
    const calls = h.fake.requests.length;

    const { events } = await chatStream(h.url, { session_id: id, message: turnText(3, 8_000) });
    // The turns before the latest were folded into a summary (the first message staying as it is)…
    const compacted = events.find((e) => e.type === 'compacted') as { tokens_before: number; tokens_after: number; turns_folded: number } | undefined;
    expect(compacted).toMatchObject({ turns_folded: 2 });
    // …which freed less than 60 % of the tokens, though what is left fits the window: that, not overflow, ends the run.
    const freed = compacted!.tokens_before - compacted!.tokens_after;
    expect(freed).toBeGreaterThan(0);
    expect(freed).toBeLessThan(compacted!.tokens_before * 0.6);
    expect(compacted!.tokens_after).toBeLessThan(4_000);
    expect(events.find((e) => e.type === 'error')).toMatchObject({ code: 'context_exhausted', message: expect.stringMatching(/compacting 2 turns freed only \d+ tokens/) });
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'error' });
    // The summarising call was made; the answering call was not.
    expect(h.fake.requests.slice(calls).map(isSummaryCall)).toEqual([true]);
  });
});
