import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleBrowser, shot } from './support/browser';
import type { Harness } from './support/harness';

/** A new session's short title (from the light tier, after the first exchange), as the console lists it. */
describe("the console: a new session's short title", () => {
  let h: Harness;
  let browser: ConsoleBrowser;
  beforeAll(async () => ({ h, browser } = await ConsoleBrowser.open({ sessionTitles: true, tiers: { light: 'claude-haiku-4-5' } })));
  afterAll(() => browser?.closeAll());
  afterEach(() => browser.settle());

  it('lists the session under the title the light tier wrote once the answer is in, and its usage counts the title call', async () => {
    const page = await browser.signIn('tina', 'Tina');
    await page.getByTestId('chat-empty').waitFor();
    h.fake.script(
      { text: 'Here is a plan for the billing tables.', usage: { input_tokens: 1200, output_tokens: 34 } },
      { text: 'Billing tables migration', usage: { input_tokens: 300, output_tokens: 6 } },
    );
    await page.getByTestId('composer').fill('Plan the migration of the billing tables to the new cluster next week, with a rollback at each step');
    await page.getByTestId('send').click();
    await page.getByTestId('message-assistant').getByTestId('run-status').getByText('completed').waitFor();
    const link = page.getByTestId('sessions').getByTestId('session-link').first();
    await link.locator('.title').getByText('Billing tables migration', { exact: true }).waitFor();
    expect(h.fake.requests.map((r) => r.body.model)).toEqual(['claude-sonnet-4-6', 'claude-haiku-4-5']);
    expect(await page.getByTestId('session-usage').textContent()).toMatch(/^1,540 tokens/);
    await shot(page, '31-session-title');
  }, 60_000);
});
