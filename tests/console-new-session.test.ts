import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleBrowser } from './support/browser';
import { DEV, getJson, type Harness } from './support/harness';

/** What a new user meets first: New session after a first exchange, and a first message that asks for approval. */
describe('the console: a new session', () => {
  let h: Harness;
  let browser: ConsoleBrowser;
  // Zero's own permission defaults: tools with side effects (the test ledger among them) ask first.
  beforeAll(async () => ({ h, browser } = await ConsoleBrowser.open({ permissions: {} })));
  afterAll(() => browser?.closeAll());
  afterEach(() => browser.settle());

  const assistant = (page: Page) => page.getByTestId('message-assistant');
  const alerts = async (page: Page) => (await page.getByRole('alert').allTextContents()).map((t) => t.trim()).filter(Boolean);

  it('"New session" after a first exchange starts empty, and its first message goes to the agent picked for it', async () => {
    const page = await browser.signIn('nina', 'Nina');
    h.fake.script({ text: 'The first answer.', usage: { input_tokens: 500, output_tokens: 20 } });
    await page.getByTestId('composer').fill('A first question');
    await page.getByTestId('send').click();
    await assistant(page).getByTestId('run-status').getByText('completed').waitFor();
    await page.waitForURL(/#\/s\/[0-9a-f-]{36}$/);
    const first = new URL(page.url()).hash.slice('#/s/'.length);

    await page.getByTestId('new-session').click();
    await page.getByTestId('chat-empty').waitFor();
    expect(await assistant(page).count()).toBe(0);
    expect(await page.getByTestId('session-usage').count()).toBe(0);
    expect(await page.getByTestId('composer').isEnabled()).toBe(true);

    await page.getByTestId('agent').selectOption('tester');
    h.fake.script({ text: 'The tester answers.' });
    await page.getByTestId('composer').fill('A second question');
    await page.getByTestId('send').click();
    await assistant(page).getByTestId('run-status').getByText('completed').waitFor();
    await page.waitForURL((url) => /^#\/s\/[0-9a-f-]{36}$/.test(url.hash) && !url.hash.endsWith(first));
    const second = new URL(page.url()).hash.slice('#/s/'.length);
    // Only the new exchange is on screen, and nothing complains.
    expect(await assistant(page).count()).toBe(1);
    expect(await assistant(page).textContent()).toContain('The tester answers.');
    expect(await alerts(page)).toEqual([]);
    const nina = await h.userHeaders('nina', 'Nina');
    expect((await getJson(`${h.url}/api/v2/sessions/${second}`, nina)).json.session.agent_id).toBe('tester');
    expect((await getJson(`${h.url}/api/v2/sessions/${first}`, nina)).json.session.agent_id).not.toBe('tester');
    // The tester's own system prompt reached the model.
    expect(JSON.stringify(h.fake.requests.at(-1)?.body.system)).toContain('You test Zero.');
  }, 60_000);

  it('a key the server no longer accepts returns the console to sign-in, saying why, instead of failing every message', async () => {
    const page = await browser.signIn('quin', 'Quin');
    const { json } = await getJson(`${h.url}/api/v2/keys?user_id=quin`, DEV);
    for (const { key_id } of json.keys as { key_id: string }[]) {
      expect((await fetch(`${h.url}/api/v2/keys/${key_id}?user_id=quin`, { method: 'DELETE', headers: DEV })).status).toBe(204);
    }
    await page.getByTestId('composer').fill('Are you there?');
    await page.getByTestId('send').click();
    await page.getByTestId('api-key').waitFor();
    await page.getByRole('alert').getByText('The server no longer accepts this key', { exact: false }).waitFor();
    // Signed out for good: a reload asks for a key again.
    await page.reload();
    await page.getByTestId('api-key').waitFor();
  }, 60_000);

  it('a first message whose tool asks for approval shows Approve / Deny live, without a reload', async () => {
    const page = await browser.signIn('omar', 'Omar');
    await page.getByTestId('agent').selectOption('tester');
    h.fake.script({ text: 'Writing it down. ', toolCalls: [{ name: 'ledger', input: { entry: 'first' } }] }, { text: 'Written down.' });
    await page.getByTestId('composer').fill('Write it down');
    await page.getByTestId('send').click();
    await page.getByTestId('awaiting-approval').getByText('ledger').waitFor();
    const call = assistant(page).filter({ hasText: 'Writing it down.' });
    await call.getByTestId('approve').click();
    await assistant(page).getByText('Written down.').waitFor();
    await assistant(page).filter({ hasText: 'Written down.' }).getByTestId('run-status').getByText('completed').waitFor();
    expect(await page.getByTestId('awaiting-approval').count()).toBe(0);
  }, 60_000);
});
