import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { evalReportSchema, evalRunResponseSchema, datasetResponseSchema } from '@zero/agent/wire';
import { cliEnv, runCli } from './support/cli';
import { startChildServer } from './support/child';
import { DEV, DEV_KEY, childConfig, getJson, postJson, startHarness, type Harness } from './support/harness';
import type { FakeRequest, FakeTurn } from './support/fake-anthropic';

const isGrader = (r: FakeRequest) => JSON.stringify(r.body.system ?? '').includes('You are a strict grader');

/**
 * The fake model: the agent answers the question it is asked, unless its message starts with "BAD MODE"
 * (the worse variant's prompt), then it is unsure; the grader passes a confident answer.
 */
function model(request: FakeRequest): FakeTurn {
  const shown = JSON.stringify(request.body.messages);
  if (isGrader(request)) {
    const result = shown.slice(shown.indexOf('Result:'));
    return { text: JSON.stringify(result.includes('not sure') ? { verdict: 'needs_revision', score: 0.1, reasons: 'The answer is unsure.' } : { verdict: 'satisfied', score: 1, reasons: 'Correct and confident.' }) };
  }
  if (shown.includes('BAD MODE')) return { text: 'I am not sure.' };
  const n = /question (\d+)/.exec(shown)?.[1];
  if (n) return { text: `Answer ${n}.` };
  return { text: shown.includes('France') ? 'Paris is the capital.' : '2+2 is 4.' };
}

/** Asks `read` again (100 ms apart, up to `tries` times) until `ok` holds; the last answer. */
async function until<T>(read: () => Promise<T>, ok: (value: T) => boolean, tries = 300): Promise<T> {
  let value = await read();
  for (let i = 0; i < tries && !ok(value); i++) {
    await new Promise((r) => setTimeout(r, 100));
    value = await read();
  }
  return value;
}

describe('evals: datasets from recorded sessions, runs against variants, graded, gated', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ leaseTtlMs: 1000 });
  });
  afterAll(() => h.close());
  afterEach(() => h.fake.reset());

  it('builds a dataset from two recorded sessions, runs it against a good and a worse variant: the rubric and a check catch it, the gate exits 9', async () => {
    h.fake.respondWith(model);
    const a = await postJson(`${h.url}/api/v2/chat`, { message: 'What is the capital of France?', stream: false });
    const b = await postJson(`${h.url}/api/v2/chat`, { message: 'What is 2+2?', stream: false });
    expect([a.status, b.status]).toEqual([200, 200]);

    const created = await postJson(`${h.url}/api/v2/evals/datasets`, {
      name: 'basics',
      from_sessions: { session_ids: [a.json.session_id, b.json.session_id] },
      rubric: 'The answer is correct and stated with confidence.',
      checks: [{ type: 'answer_not_matches', pattern: 'not sure', flags: 'i' }],
    });
    expect(created.status).toBe(201);
    const dataset = datasetResponseSchema.parse(created.json).dataset;
    expect(dataset).toMatchObject({ name: 'basics', version: 1 });
    expect(dataset.cases.map((c) => [c.messages, c.reference])).toEqual([
      [['What is the capital of France?'], 'Paris is the capital.'],
      [['What is 2+2?'], '2+2 is 4.'],
    ]);

    const gate = await runCli(['eval', 'run', 'basics', '--variant', 'good', '--variant', 'bad:prefix=BAD MODE', '--baseline', 'good', '--format', 'json'], {
      env: cliEnv({ ZERO_URL: h.url, ZERO_KEY: DEV_KEY }),
      timeoutMs: 60_000,
    });
    expect(gate.stderr, gate.stdout).toContain('bad is worse than good');
    expect(gate.code).toBe(9);
    const report = evalReportSchema.parse(JSON.parse(gate.stdout));
    const [good, bad] = report.variants;
    expect(good).toMatchObject({ variant: 'good', cases: 2, mean_score: 1, pass_rate: 1 });
    expect(bad).toMatchObject({ variant: 'bad', cases: 2, pass_rate: 0 });
    expect(bad!.mean_score).toBeLessThan(0.1);
    expect(report.regressions).toEqual([expect.objectContaining({ variant: 'bad', baseline: 'good' })]);
    const badCase = report.cases[0]!.by_variant.bad!;
    expect(badCase.answer).toBe('I am not sure.');
    expect(badCase.checks).toEqual([expect.objectContaining({ type: 'answer_not_matches', pass: false })]);
    expect(badCase.grade?.verdict).toBe('needs_revision');
    // Each case ran in a fresh session of its own, per variant.
    expect(new Set(report.cases.flatMap((c) => Object.values(c.by_variant).map((r) => r.answer))).size).toBeGreaterThan(1);

    const markdown = await fetch(`${h.url}/api/v2/evals/runs/${report.run.id}/results?format=markdown`, { headers: DEV }).then((r) => r.text());
    expect(markdown).toContain('| good (baseline) | 1.000');
    expect(markdown).toContain('## Worse than the baseline');

    // Two variants alike: the gate passes.
    const same = await runCli(['eval', 'run', 'basics', '--variant', 'one', '--variant', 'two', '--format', 'markdown'], { env: cliEnv({ ZERO_URL: h.url, ZERO_KEY: DEV_KEY }), timeoutMs: 60_000 });
    expect(same.code).toBe(0);
    expect(same.stdout).toContain('| one (baseline) |');
  }, 120_000);

  it('reads a JSONL file of cases and refuses a bad line, a bad variant and an unknown dataset by name', async () => {
    const file = ['{"input": "question 1", "expected_facts": ["Answer 1"]}', '{"id": "two", "messages": ["question 2"], "checks": [{"type": "max_steps", "value": 3}]}'].join('\n');
    const ok = await postJson(`${h.url}/api/v2/evals/datasets`, { name: 'lines', file: { format: 'jsonl', text: file } });
    expect(ok.status).toBe(201);
    expect(ok.json.dataset.cases.map((c: { id: string }) => c.id)).toEqual(['case-1', 'two']);
    const again = await postJson(`${h.url}/api/v2/evals/datasets`, { name: 'lines', file: { format: 'jsonl', text: file } });
    expect(again.json.dataset.version).toBe(2);
    expect((await getJson(`${h.url}/api/v2/evals/datasets/lines?version=1`)).json.dataset.version).toBe(1);

    const badLine = await postJson(`${h.url}/api/v2/evals/datasets`, { name: 'lines', file: { format: 'jsonl', text: '{"input": "q"}\n{not json' } });
    expect(badLine.status).toBe(400);
    expect(JSON.stringify(badLine.json)).toContain('line 2');
    const badCheck = await postJson(`${h.url}/api/v2/evals/datasets`, { name: 'x', content: { cases: [{ id: 'a', messages: ['q'], checks: [{ type: 'tool_called' }] }] } });
    expect(badCheck.status).toBe(400);
    expect(JSON.stringify(badCheck.json)).toContain('content.cases.0.checks.0.tool');
    const badBaseline = await postJson(`${h.url}/api/v2/evals/runs`, { dataset: 'lines', variants: [{ name: 'a' }], baseline: 'b' });
    expect(badBaseline.status).toBe(400);
    expect(JSON.stringify(badBaseline.json)).toContain('baseline');
    const unknown = await postJson(`${h.url}/api/v2/evals/runs`, { dataset: 'nothing-here', variants: [{ name: 'a' }] });
    expect(unknown.status).toBe(400);
    expect(JSON.stringify(unknown.json)).toContain('nothing-here');
  });

  it('a driver killed in the middle of a run: the next read carries it on, and each case runs once', async () => {
    h.fake.respondWith(model);
    const cases = Array.from({ length: 5 }, (_, i) => ({ id: `q${i + 1}`, messages: [`question ${i + 1}`], checks: [{ type: 'answer_matches', pattern: `Answer ${i + 1}` }] }));
    expect((await postJson(`${h.url}/api/v2/evals/datasets`, { name: 'crash', content: { cases } })).status).toBe(201);
    const child = await startChildServer(childConfig(h, 1000));
    try {
      const started = await postJson(`${child.url}/api/v2/evals/runs`, { dataset: 'crash', variants: [{ name: 'only' }], concurrency: 1 }, DEV);
      expect(started.status).toBe(201);
      const id = started.json.run.id as string;
      const results = () => getJson(`${h.url}/api/v2/evals/runs/${id}/results`).then((r) => evalReportSchema.parse(r.json));
      const before = await until(results, (r) => r.done >= 2);
      await child.kill();
      const finishedBefore = before.cases.filter((c) => c.by_variant.only).map((c) => [c.case_id, c.by_variant.only!.answer]);

      // A read of the run on another server finds no live driver and carries it on.
      const done = await until(() => getJson(`${h.url}/api/v2/evals/runs/${id}`).then((r) => evalRunResponseSchema.parse(r.json)), (r) => r.run.status === 'completed');
      expect(done).toMatchObject({ done: 5, total: 5 });
      const after = await results();
      expect(after.cases.map((c) => [c.case_id, c.by_variant.only?.answer, c.by_variant.only?.pass])).toEqual(cases.map((c, i) => [c.id, `Answer ${i + 1}.`, true]));
      // The cases finished before the kill were not run again; every case's question reached the model once, bar the one in flight when it died.
      expect(finishedBefore.length).toBeGreaterThanOrEqual(2);
      const asked = h.fake.requests.filter((r) => !isGrader(r)).map((r) => /question (\d+)/.exec(JSON.stringify(r.body.messages))?.[1]);
      for (const n of ['1', '2']) expect(asked.filter((q) => q === n)).toHaveLength(1);
      expect(asked.length).toBeLessThanOrEqual(6);
      expect(new Set(asked)).toEqual(new Set(['1', '2', '3', '4', '5']));
    } finally {
      await child.kill();
    }
  });
});
