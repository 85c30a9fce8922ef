/**
 * An eval run's wall time and cost: `EVAL_BENCH_N` cases (default 50) × 2 variants against the fake
 * model (each case one message, answered in one model call, then graded by the rubric grader and a
 * regex check), and the same sessions run by hand (one `POST /api/v2/chat` each, `stream: false`,
 * `EVAL_BENCH_CONCURRENCY` at a time, default 4, as the run's concurrency) for the overhead per case.
 * The server, the fake model, dynalite and s3rver run as in the end-to-end tests.
 * Run with `npx tsx bench/evals.ts`.
 */
import { loadavg } from 'node:os';
import { DEV, getJson, postJson, startHarness } from '../tests/support/harness';
import type { FakeRequest, FakeTurn } from '../tests/support/fake-anthropic';
import { ms, table } from './support/stats';

const n = Number(process.env.EVAL_BENCH_N ?? 50);
const concurrency = Number(process.env.EVAL_BENCH_CONCURRENCY ?? 4);
const h = await startHarness({ leaseTtlMs: 5000 });
const isGrader = (r: FakeRequest) => JSON.stringify(r.body.system ?? '').includes('You are a strict grader');
h.fake.respondWith((r): FakeTurn => {
  if (isGrader(r)) return { text: '{"verdict": "satisfied", "score": 1, "reasons": "ok"}', usage: { input_tokens: 400, output_tokens: 30 } };
  const q = /question (\d+)/.exec(JSON.stringify(r.body.messages))?.[1] ?? '?';
  return { text: `Answer ${q}.`, usage: { input_tokens: 1200, output_tokens: 40 } };
});

const cases = Array.from({ length: n }, (_, i) => ({ id: `q${i + 1}`, messages: [`question ${i + 1}`], checks: [{ type: 'answer_matches', pattern: `Answer ${i + 1}` }] }));
const stored = await postJson(`${h.url}/api/v2/evals/datasets`, { name: 'bench', content: { rubric: 'The answer answers the question.', cases } });
if (stored.status !== 201) throw new Error(`the dataset was refused: ${stored.text}`);

// By hand: the same 2 × n sessions, one chat each, `concurrency` at a time.
const byHandStart = performance.now();
const queue = Array.from({ length: 2 * n }, (_, i) => `question ${(i % n) + 1}`);
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    for (let q = queue.shift(); q; q = queue.shift()) await postJson(`${h.url}/api/v2/chat`, { message: q, stream: false });
  }),
);
const byHandMs = performance.now() - byHandStart;

const requestsBefore = h.fake.requests.length;
const start = performance.now();
const { json: created } = await postJson(`${h.url}/api/v2/evals/runs`, { dataset: 'bench', variants: [{ name: 'a' }, { name: 'b', prompt_prefix: 'Be brief.' }], baseline: 'a', concurrency });
if (!created?.run) throw new Error(`the run was refused: ${JSON.stringify(created)}`);
const id = created.run.id as string;
let state = created;
while (state.run.status === 'running') {
  await new Promise((r) => setTimeout(r, 200));
  state = (await getJson(`${h.url}/api/v2/evals/runs/${id}`, DEV)).json;
}
const evalMs = performance.now() - start;
const report = (await getJson(`${h.url}/api/v2/evals/runs/${id}/results`, DEV)).json;
const cost = report.variants.reduce((a: number, v: { cost_usd: number; grader_cost_usd: number }) => a + v.cost_usd + v.grader_cost_usd, 0);
const slots = 2 * n;

console.log(`eval run: ${n} cases × 2 variants against the fake model, concurrency ${concurrency} (load ${loadavg()[0]!.toFixed(2)})`);
console.log(
  table('', ['', 'wall ms', 'per case ms'], [
    ['eval run (sessions + grading + report)', ms(evalMs), ms(evalMs / slots)],
    ['the same sessions by hand (POST /chat)', ms(byHandMs), ms(byHandMs / slots)],
    ['overhead per case', '', ms((evalMs - byHandMs) / slots)],
  ]),
);
console.log(`model calls: ${h.fake.requests.length - requestsBefore} (${slots} agent + ${slots} grader); list cost at the fake's usage: $${cost.toFixed(4)} (agent $${report.variants.reduce((a: number, v: { cost_usd: number }) => a + v.cost_usd, 0).toFixed(4)}, grader $${report.variants.reduce((a: number, v: { grader_cost_usd: number }) => a + v.grader_cost_usd, 0).toFixed(4)})`);
console.log(`mean scores: ${report.variants.map((v: { variant: string; mean_score: number }) => `${v.variant} ${v.mean_score}`).join(', ')}; results ${report.done}/${report.total}`);
await h.close();
