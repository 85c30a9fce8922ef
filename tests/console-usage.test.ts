import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleBrowser, seriousViolations, shot } from './support/browser';
import { DEV, DEV_KEY, send, type Harness } from './support/harness';

/** The console's usage page: a week of tokens, cost and runs, everyone's for administrators, one's own otherwise. */
describe('the console: usage', () => {
  let h: Harness;
  let browser: ConsoleBrowser;
  const cost: Record<string, number> = {};
  beforeAll(async () => {
    ({ h, browser } = await ConsoleBrowser.open());
    // Alice's run uses 1,000 + 200 and 2,000 + 300 tokens over a tool call; bob's 500 + 100.
    h.fake.script(
      { toolCalls: [{ name: 'echo', input: { text: 'a' } }], usage: { input_tokens: 1000, output_tokens: 200 } },
      { text: 'done', usage: { input_tokens: 2000, output_tokens: 300 } },
      { text: 'hi', usage: { input_tokens: 500, output_tokens: 100 } },
    );
    for (const user of ['alice', 'bob']) {
      const headers = await h.userHeaders(user);
      const chat = await send(h, 'POST', '/chat', headers, { agent_id: 'tester', message: 'go' });
      expect(chat.json.status).toBe('completed');
      cost[user] = (await send(h, 'GET', `/sessions/${chat.json.session_id}`, headers)).json.spend.cost_usd;
    }
  });
  afterAll(() => browser?.closeAll());
  afterEach(() => browser.settle());

  const rows = async (page: Page) =>
    page
      .getByTestId('usage-row')
      .evaluateAll((trs) => trs.map((tr) => Array.from(tr.children, (cell) => cell.textContent!.trim())))
      .then((cells) => cells.map((c) => c.join(' | ')));
  const dollars = (n: number) => `$${n.toFixed(4)}`;

  it('shows an administrator every user, agent and day of the last week, with the total', async () => {
    const page = await browser.newPage();
    await page.goto(`${h.url}/`);
    await page.getByTestId('api-key').fill(DEV_KEY);
    await page.getByTestId('sign-in').click();
    await page.getByTestId('open-usage').click();
    expect(await page.getByTestId('panel-title').textContent()).toBe('Usage');

    await expect.poll(() => rows(page)).toEqual([`alice | 3,500 | ${dollars(cost.alice!)} | 1`, `bob | 600 | ${dollars(cost.bob!)} | 1`]);
    expect(await page.getByTestId('usage-scope').textContent()).toMatch(/^Everyone, \d{4}-\d{2}-\d{2} to \d{4}-\d{2}-\d{2} \(UTC\)$/);
    expect(await page.getByTestId('usage-total').textContent()).toBe(`Total4,100${dollars(cost.alice! + cost.bob!)}2`);
    await shot(page, '60-usage-admin');
    expect(await seriousViolations(page)).toEqual([]);

    await page.getByTestId('usage-by-agent').click();
    await expect.poll(() => rows(page)).toEqual([`tester | 4,100 | ${dollars(cost.alice! + cost.bob!)} | 2`]);
    await page.getByTestId('usage-by-day').click();
    const today = new Date().toISOString().slice(0, 10);
    await expect.poll(() => rows(page)).toEqual([`${today} | 4,100 | ${dollars(cost.alice! + cost.bob!)} | 2`]);
    // The week asked for is the 7 days up to today.
    const weekAgo = new Date(Date.now() - 6 * 86_400_000).toISOString().slice(0, 10);
    expect(await page.getByTestId('usage-scope').textContent()).toContain(`${weekAgo} to ${today}`);
  }, 60_000);

  it('shows any other user only their own usage, and loads its code only when opened', async () => {
    const page = await browser.signIn('bob', 'Bob');
    const chunks: string[] = [];
    page.on('request', (r) => {
      if (/\/assets\/usage-[^/]*\.js$/.test(r.url())) chunks.push(r.url());
    });
    await page.getByTestId('open-memory').click();
    await page.getByTestId('memory-panel').waitFor();
    expect(chunks).toEqual([]);

    await page.getByTestId('open-usage').click();
    await expect.poll(() => rows(page)).toEqual([`bob | 600 | ${dollars(cost.bob!)} | 1`]);
    expect(chunks).toHaveLength(1);
    expect(await page.getByTestId('usage-scope').textContent()).toMatch(/^Your runs \(bob\), /);
    expect(await page.getByTestId('usage-total').textContent()).toBe(`Total600${dollars(cost.bob!)}1`);
    // Other users' runs are not in bob's days either.
    await page.getByTestId('usage-by-day').click();
    await expect.poll(() => rows(page)).toEqual([expect.stringMatching(/^\d{4}-\d{2}-\d{2} \| 600 \| /)]);

    // An administrator's view of the same API agrees with what bob saw.
    expect((await send(h, 'GET', '/usage?group_by=user', DEV)).json.groups.map((g: { key: string }) => g.key)).toEqual(['alice', 'bob']);
  }, 60_000);
});
