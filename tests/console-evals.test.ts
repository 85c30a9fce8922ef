import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { evalReportSchema } from '@zero/agent/wire/evals';
import { ConsoleBrowser, seriousViolations, shot } from './support/browser';
import { DEV_KEY, getJson, postJson, type Harness } from './support/harness';
import type { FakeRequest, FakeTurn } from './support/fake-anthropic';

const isGrader = (r: FakeRequest) => JSON.stringify(r.body.system ?? '').includes('You are a strict grader');

/** The console's evals page: the runs, a running run's cases × variants filling in, and each variant's score against its cost. */
describe('the console: evals', () => {
  let h: Harness;
  let browser: ConsoleBrowser;
  beforeAll(async () => {
    ({ h, browser } = await ConsoleBrowser.open());
  });
  afterAll(() => browser?.closeAll());
  afterEach(() => browser.settle());

  /** Each case row as `case | cell | cell`, a pending cell as `…`. */
  const rows = (page: Page) =>
    page
      .getByTestId('eval-case')
      .evaluateAll((trs) => trs.map((tr) => Array.from(tr.children, (cell) => cell.textContent!.trim()).join(' | ')));
  /** Presses Tab until the focused element has this test id (at most 30 times); its test id and label. */
  const tabTo = async (page: Page, testId: string) => {
    for (let i = 0; i < 30; i++) {
      await page.keyboard.press('Tab');
      const focused = await page.evaluate(() => ({ id: document.activeElement?.getAttribute('data-testid'), label: document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.textContent }));
      if (focused.id === testId) return focused;
    }
    throw new Error(`Tab never reached ${testId}`);
  };

  it('follows a run of two variants as its cases finish, then plots each variant at its mean score and cost', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    h.fake.respondWith((request): FakeTurn => {
      const shown = JSON.stringify(request.body.messages);
      if (isGrader(request)) {
        const result = shown.slice(shown.indexOf('Result:'));
        return { text: JSON.stringify(result.includes('not sure') ? { verdict: 'needs_revision', score: 0.2, reasons: 'Unsure.' } : { verdict: 'satisfied', score: 1, reasons: 'Right.' }), usage: { input_tokens: 400, output_tokens: 30 } };
      }
      const n = /question (\d+)/.exec(shown)?.[1];
      // The worse variant is unsure and spends three times as much; the second question's answers wait for the test.
      const turn: FakeTurn = shown.includes('BAD MODE') ? { text: 'I am not sure.', usage: { input_tokens: 3000, output_tokens: 300 } } : { text: `Answer ${n}.`, usage: { input_tokens: 1000, output_tokens: 100 } };
      return n === '2' ? { ...turn, after: held } : turn;
    });
    const cases = ['q1', 'q2'].map((id, i) => ({ id, messages: [`question ${i + 1}`], checks: [{ type: 'answer_not_matches', pattern: 'not sure' }] }));
    expect((await postJson(`${h.url}/api/v2/evals/datasets`, { name: 'console', content: { cases, rubric: 'The answer is stated with confidence.' } })).status).toBe(201);
    const started = await postJson(`${h.url}/api/v2/evals/runs`, { dataset: 'console', variants: [{ name: 'good' }, { name: 'bad', prompt_prefix: 'BAD MODE' }], baseline: 'good', concurrency: 4 });
    expect(started.status).toBe(201);
    const id = started.json.run.id as string;

    const page = await browser.newPage();
    await page.goto(`${h.url}/`);
    await page.getByTestId('api-key').fill(DEV_KEY);
    await page.getByTestId('sign-in').click();
    await page.getByTestId('open-evals').click();
    expect(await page.getByTestId('panel-title').textContent()).toBe('Evals');
    await page.locator(`[data-testid="eval-run"][data-run-id="${id}"]`).waitFor();
    // By keyboard: from the Evals button to the run, opened with Enter.
    await page.getByTestId('open-evals').focus();
    await tabTo(page, 'eval-run');
    await page.keyboard.press('Enter');

    // The first question's cases finish; the second's wait on the model.
    await expect.poll(() => rows(page), { timeout: 30_000 }).toEqual(['q1 | 1.00 ✓ | 0.10 ✗', 'q2 | … | …']);
    expect(await page.getByTestId('eval-progress').textContent()).toBe('2 of 4 case results · running');
    await shot(page, '64-evals-running');
    release();
    await expect.poll(() => rows(page), { timeout: 30_000 }).toEqual(['q1 | 1.00 ✓ | 0.10 ✗', 'q2 | 1.00 ✓ | 0.10 ✗']);
    await expect.poll(() => page.getByTestId('eval-progress').textContent(), { timeout: 30_000 }).toBe('4 of 4 case results · completed');
    expect(await page.locator(`[data-testid="eval-run"][data-run-id="${id}"] [data-testid="eval-run-status"]`).textContent()).toBe('completed');

    // One point per variant, where its mean score (up, 0 to 1) and cost (right, 0 to the dearest) put it.
    const report = evalReportSchema.parse((await getJson(`${h.url}/api/v2/evals/runs/${id}/results`)).json);
    const [good, bad] = report.variants;
    expect(good!.cost_usd).toBeLessThan(bad!.cost_usd);
    const points = await page.getByTestId('eval-point').evaluateAll((gs) =>
      gs.map((g) => ({ variant: g.getAttribute('data-variant'), label: g.querySelector('text')!.textContent, cx: Number(g.querySelector('circle')!.getAttribute('cx')), cy: Number(g.querySelector('circle')!.getAttribute('cy')) })),
    );
    // The plot area: x from 56 to 456, y from 16 (score 1) to 236 (score 0), as the chart draws it.
    const at = (cost: number, score: number) => ({ cx: 56 + (cost / bad!.cost_usd) * 400, cy: 16 + (1 - score) * 220 });
    expect(points.map((p) => [p.variant, p.label])).toEqual([['good', 'good'], ['bad', 'bad']]);
    for (const [i, v] of [good!, bad!].entries()) {
      const want = at(v.cost_usd, v.mean_score);
      expect(points[i]!.cx).toBeCloseTo(want.cx, 3);
      expect(points[i]!.cy).toBeCloseTo(want.cy, 3);
    }
    expect(points[0]!.cy).toBeCloseTo(16, 3);
    expect(points[1]!.cx).toBeCloseTo(456, 3);
    // The axes say what they measure; each point is reached by Tab and names its figures.
    const chartText = await page.getByTestId('eval-chart').textContent();
    for (const words of ['Mean score', 'Cost (USD, all cases)', '$0', `$${bad!.cost_usd.toFixed(4)}`]) expect(chartText).toContain(words);
    const point = await tabTo(page, 'eval-point');
    expect(point.label).toBe(`good: mean score 1.000, cost $${good!.cost_usd.toFixed(4)}`);
    await shot(page, '65-evals-chart');
    expect(await seriousViolations(page)).toEqual([]);
  }, 90_000);
});
