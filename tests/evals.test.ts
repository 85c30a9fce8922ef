import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { evalReportSchema, evalRunListSchema, evalRunResponseSchema, datasetResponseSchema } from '@zero/agent/wire/evals';
import { cliEnv, runCli } from './support/cli';
import { startChildServer } from './support/child';
import { DEV, DEV_KEY, childConfig, getJson, postJson, startHarness, type Harness } from './support/harness';
import type { FakeRequest, FakeTurn } from './support/fake-anthropic';
import { FakeGitHub } from './support/fake-github';

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
  let gh: FakeGitHub;
  const tokens: Record<string, string> = {};
  beforeAll(async () => {
    gh = await new FakeGitHub().start();
    gh.addRepo('acme/shop');
    tokens.ZERO_GITHUB_TOKEN = gh.issueToken();
    h = await startHarness({ leaseTtlMs: 1000, outbound: { allow: ['127.0.0.1'] }, github: { apiUrl: gh.url, retryBaseMs: 5 }, githubToken: (ref) => tokens[ref] });
  });
  afterAll(async () => {
    await h.close();
    await gh.stop();
  });
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
  it('a cancelled run starts no further case: the case under way finishes, the run says cancelled, its results stay readable', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    h.fake.respondWith((request) => {
      const turn = model(request);
      // The second case's answer waits until the test has cancelled the run.
      return !isGrader(request) && JSON.stringify(request.body.messages).includes('question 2') ? { ...turn, after: held } : turn;
    });
    const cases = Array.from({ length: 4 }, (_, i) => ({ id: `c${i + 1}`, messages: [`question ${i + 1}`] }));
    expect((await postJson(`${h.url}/api/v2/evals/datasets`, { name: 'stoppable', content: { cases } })).status).toBe(201);
    const started = await postJson(`${h.url}/api/v2/evals/runs`, { dataset: 'stoppable', variants: [{ name: 'only' }], concurrency: 1 });
    expect(started.status).toBe(201);
    const id = started.json.run.id as string;
    const asked = () => h.fake.requests.filter((r) => !isGrader(r)).map((r) => /question (\d+)/.exec(JSON.stringify(r.body.messages))?.[1]);
    await until(async () => asked(), (a) => a.includes('2'));

    const cancelled = await postJson(`${h.url}/api/v2/evals/runs/${id}/cancel`, {});
    expect(cancelled.status).toBe(200);
    expect(evalRunResponseSchema.parse(cancelled.json).run.status).toBe('cancelled');
    release();

    // The driver ends once the case under way has its result; it releases the run's lease then.
    const driver = await until(() => h.server.runtime.leases.inspect(`evalrun:${id}`), (lease) => !lease?.active);
    expect(driver?.active ?? false).toBe(false);
    expect(asked()).toEqual(['1', '2']);
    expect(await h.server.runtime.sessions.getSession(`${id}_v0_c2`)).toBeUndefined();
    const run = evalRunResponseSchema.parse((await getJson(`${h.url}/api/v2/evals/runs/${id}`)).json);
    expect(run).toMatchObject({ run: { status: 'cancelled' }, done: 2, total: 4 });
    const report = evalReportSchema.parse((await getJson(`${h.url}/api/v2/evals/runs/${id}/results`)).json);
    expect(report.cases.filter((c) => c.by_variant.only).map((c) => [c.case_id, c.by_variant.only!.answer])).toEqual([['c1', 'Answer 1.'], ['c2', 'Answer 2.']]);
    // Cancelling again is harmless.
    expect((await postJson(`${h.url}/api/v2/evals/runs/${id}/cancel`, {})).status).toBe(200);
  });

  it("a variant's system prompt replaces the agent's (or is appended) for that variant's cases only", async () => {
    h.fake.respondWith((request) => {
      if (isGrader(request)) return model(request);
      const system = JSON.stringify(request.body.system ?? '');
      return { text: `${system.includes('PIRATE CAPTAIN') ? 'pirate' : 'plain'} ${system.includes(', an agent of Zero.') ? 'agent' : 'no-agent'} ${system.includes('ALWAYS CITE') ? 'cites' : 'no-cite'}` };
    });
    const cases = [{ id: 'a', messages: ['question 1'] }, { id: 'b', messages: ['question 2'] }];
    expect((await postJson(`${h.url}/api/v2/evals/datasets`, { name: 'prompts', content: { cases } })).status).toBe(201);
    const gate = await runCli(['eval', 'run', 'prompts', '--variant', 'plain', '--variant', 'pirate:system=You are a PIRATE CAPTAIN.', '--variant', 'cite:append_system=ALWAYS CITE your sources.', '--format', 'json'], {
      env: cliEnv({ ZERO_URL: h.url, ZERO_KEY: DEV_KEY }),
      timeoutMs: 60_000,
    });
    expect(gate.code, gate.stderr).toBe(0);
    const report = evalReportSchema.parse(JSON.parse(gate.stdout));
    expect(report.run.variants).toEqual([{ name: 'plain' }, { name: 'pirate', system_prompt: 'You are a PIRATE CAPTAIN.' }, { name: 'cite', append_system_prompt: 'ALWAYS CITE your sources.' }]);
    for (const c of report.cases) {
      expect(c.by_variant.plain!.answer).toBe('plain agent no-cite');
      expect(c.by_variant.pirate!.answer).toBe('pirate no-agent no-cite');
      expect(c.by_variant.cite!.answer).toBe('plain agent cites');
    }
    // Zero's own sections stay in a replaced prompt; the grader never sees a variant's prompt.
    const pirate = h.fake.requests.filter((r) => !isGrader(r) && JSON.stringify(r.body.system).includes('PIRATE CAPTAIN'));
    expect(pirate).toHaveLength(2);
    for (const r of pirate) expect(JSON.stringify(r.body.system)).toContain('## Who is speaking');
    expect(h.fake.requests.filter((r) => isGrader(r) && /PIRATE|ALWAYS CITE/.test(JSON.stringify(r.body.system)))).toEqual([]);

    const bad = await postJson(`${h.url}/api/v2/evals/runs`, { dataset: 'prompts', variants: [{ name: 'x', system_prompt: '' }] });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.json)).toContain('variants.0.system_prompt');
  }, 90_000);
  it('puts the report on a commit as a GitHub check run: success when the gate passes, failure when a variant is worse', async () => {
    h.fake.respondWith(model);
    const cases = [{ id: 'one', messages: ['question 1'], checks: [{ type: 'answer_not_matches', pattern: 'not sure' }] }, { id: 'two', messages: ['question 2'], checks: [{ type: 'answer_not_matches', pattern: 'not sure' }] }];
    expect((await postJson(`${h.url}/api/v2/evals/datasets`, { name: 'checked', content: { cases } })).status).toBe(201);
    const sha = 'a'.repeat(40);
    const env = cliEnv({ ZERO_URL: h.url, ZERO_KEY: DEV_KEY });

    const passing = await runCli(['eval', 'run', 'checked', '--variant', 'one', '--variant', 'two', '--github-check', `acme/shop@${sha}`, '--format', 'markdown'], { env, timeoutMs: 60_000 });
    expect(passing.code, passing.stderr).toBe(0);
    const success = gh.checkRuns.at(-1)!;
    expect(success).toMatchObject({ name: 'Zero eval (checked)', head_sha: sha, status: 'completed', conclusion: 'success' });
    expect(success.output?.summary?.trimEnd()).toBe(passing.stdout.trimEnd());
    expect(passing.stderr).toContain(`GitHub check run ${success.id}: success`);
    expect(gh.requests.find((r) => r.path === '/repos/acme/shop/check-runs')?.authorization).toBe(`Bearer ${tokens.ZERO_GITHUB_TOKEN}`);

    const failing = await runCli(['eval', 'run', 'checked', '--variant', 'good', '--variant', 'bad:prefix=BAD MODE', '--github-check', `acme/shop@${sha}`], { env, timeoutMs: 60_000 });
    expect(failing.code).toBe(9);
    const failure = gh.checkRuns.at(-1)!;
    expect(failure).toMatchObject({ head_sha: sha, conclusion: 'failure', output: { title: 'Worse than the baseline: bad' } });
    expect(failure.output?.summary).toContain('## Worse than the baseline');
    const runs = evalRunListSchema.parse((await getJson(`${h.url}/api/v2/evals/runs`)).json).runs;
    expect(runs.find((r) => r.github_check?.report?.check_run_id === failure.id)?.github_check).toMatchObject({ repo: 'acme/shop', sha, threshold: 0.05, report: { status: 'delivered', conclusion: 'failure' } });
    expect(gh.checkRuns).toHaveLength(2);

    // A bad commit or repository is refused, naming the field; so is the flag's shape in the CLI.
    const badSha = await postJson(`${h.url}/api/v2/evals/runs`, { dataset: 'checked', variants: [{ name: 'a' }], github_check: { repo: 'acme/shop', sha: 'main' } });
    expect(badSha.status).toBe(400);
    expect(JSON.stringify(badSha.json)).toContain('github_check.sha');
    const badFlag = await runCli(['eval', 'run', 'checked', '--github-check', 'acme/shop'], { env, timeoutMs: 30_000 });
    expect(badFlag.code).not.toBe(0);
    expect(badFlag.stderr).toContain('--github-check');
  }, 120_000);
});
