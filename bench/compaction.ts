/**
 * A long session with and without compaction: `COMPACTION_BENCH_TURNS` turns (default 300) of one
 * session against the fake model with its simulated prompt cache, each user message about 1,200
 * characters and each answer about 400. Reports the input tokens sent per turn (first, median, last,
 * mean) and the cache-read share of them, in turns before the first compaction and after it.
 * Without compaction the window is made large enough never to fill (the real API would refuse the
 * call once the session outgrew it); with compaction the window is `COMPACTION_BENCH_WINDOW` tokens
 * (default 40,000), compacted at 80 % keeping the last 5 turns.
 * Run with `npx tsx bench/compaction.ts`.
 */
import { loadavg } from 'node:os';
import { postJson, startHarness } from '../tests/support/harness';
import type { FakeRequest } from '../tests/support/fake-anthropic';
import { chatStream } from '../tests/support/sse';
import { table } from './support/stats';

const turns = Number(process.env.COMPACTION_BENCH_TURNS ?? 300);
const window = Number(process.env.COMPACTION_BENCH_WINDOW ?? 40_000);
const filler = 'The checkout service calls the payment API, retries twice and logs the order id. ';
const isSummary = (r: FakeRequest) => JSON.stringify(r.body.system ?? '').includes('You compact a conversation');

interface Figures {
  label: string;
  perTurn: number[];
  cacheShare: number[];
  compactedAt: number[];
  summaryTokens: number;
}

async function session(label: string, limits: Record<string, number>): Promise<Figures> {
  const h = await startHarness({ limits: { ...limits, maxTokens: 1_000_000_000 } });
  h.fake.simulatePromptCache();
  h.fake.respondWith((request) => (isSummary(request) ? { text: `- ${filler.repeat(8)}` } : { text: filler.repeat(5) }));
  const { json } = await postJson(`${h.url}/api/v2/sessions`, { agent_id: 'tester' });
  const id = json.session.session_id as string;
  const figures: Figures = { label, perTurn: [], cacheShare: [], compactedAt: [], summaryTokens: 0 };
  for (let n = 1; n <= turns; n++) {
    const seen = h.fake.requests.length;
    const { events } = await chatStream(h.url, { session_id: id, message: `Turn ${n}. ${filler.repeat(15)}` });
    const done = events.at(-1) as { type: string; status?: string };
    if (done.type !== 'done' || done.status !== 'completed') throw new Error(`turn ${n} ended ${JSON.stringify(done)}`);
    if (events.some((e) => e.type === 'compacted')) figures.compactedAt.push(n);
    // The answer's own call (the last request of the turn), as billed by the simulated cache.
    const bills = h.fake.bills.slice(seen);
    const requests = h.fake.requests.slice(seen);
    requests.forEach((r, i) => {
      if (isSummary(r)) figures.summaryTokens += bills[i]!.input_tokens + bills[i]!.cache_read_input_tokens + bills[i]!.cache_creation_input_tokens;
    });
    const answer = bills.at(-1)!;
    const sent = answer.input_tokens + answer.cache_read_input_tokens + answer.cache_creation_input_tokens;
    figures.perTurn.push(sent);
    figures.cacheShare.push(answer.cache_read_input_tokens / sent);
  }
  await h.close();
  return figures;
}

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : Number.NaN);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
const pct = (x: number) => `${(x * 100).toFixed(1)} %`;

const without = await session('without compaction', { contextWindowTokens: 100_000_000 });
const withCompaction = await session('with compaction', { contextWindowTokens: window, compactAtPercent: 80, compactKeepTurns: 5 });

const rows = [without, withCompaction].map((f) => {
  const first = f.compactedAt[0] ?? turns + 1;
  const before = f.cacheShare.slice(0, first - 1);
  const compacting = new Set(f.compactedAt);
  const after = f.cacheShare.flatMap((share, i) => (i + 1 > first && !compacting.has(i + 1) ? [share] : []));
  return [
    f.label,
    String(f.perTurn[0]),
    String(median(f.perTurn)),
    String(f.perTurn.at(-1)),
    String(Math.round(mean(f.perTurn))),
    pct(mean(f.cacheShare)),
    pct(mean(before)),
    after.length ? pct(mean(after)) : '–',
    String(f.compactedAt.length),
    String(f.summaryTokens),
  ];
});
console.log(
  table(`${turns}-turn session, window ${window} tokens with compaction (load ${loadavg().map((l) => l.toFixed(1)).join(' ')})`, ['', 'tokens sent: turn 1', 'median', `turn ${turns}`, 'mean', 'cache-read share (all turns)', 'before 1st compaction', 'after it (turns not compacting)', 'compactions', 'summary call tokens'], rows),
);
