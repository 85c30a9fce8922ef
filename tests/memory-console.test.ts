import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureConsoleBuilt } from '../local/console-build';
import { launchChromium } from './support/browser';
import { send, startHarness, type Harness } from './support/harness';


// The bundle under test is the one the sources make: rebuilt when a source is newer than it.
await ensureConsoleBuilt();

describe('the console\'s Memory panel in a real browser', () => {
  let h: Harness;
  let browser: Browser;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    h = await startHarness();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  it('lists the user\'s memory, edits a file, and refuses a save over a change made elsewhere', async () => {
    const alice = await h.userHeaders('alice', 'Alice');
    await send(h, 'PUT', '/memories/users/me/preferences.md', alice, { content: 'tabs\n' });
    const page = await (await browser.newContext()).newPage();
    page.setDefaultTimeout(20_000);
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(`${h.url}/`);
    await page.getByTestId('api-key').fill(alice.authorization!.replace(/^Bearer /, ''));
    await page.getByTestId('sign-in').click();
    await page.getByTestId('open-memory').click();

    await page.getByTestId('memory-files').getByText('preferences.md').click();
    await expect.poll(() => page.getByTestId('memory-content').inputValue()).toBe('tabs\n');
    await page.getByTestId('memory-content').fill('tabs, 4 wide\n');
    await page.getByTestId('memory-save').click();
    await page.getByTestId('memory-message').getByText('Saved preferences.md.').waitFor();
    expect((await send(h, 'GET', '/memories/users/me/preferences.md', alice)).json.content).toBe('tabs, 4 wide\n');

    // Changed through the API meanwhile: the console's save is refused with the conflict, the other change kept.
    await send(h, 'PUT', '/memories/users/me/preferences.md', alice, { content: 'spaces\n' });
    await page.getByTestId('memory-content').fill('mine\n');
    await page.getByTestId('memory-save').click();
    await page.getByTestId('memory-message').getByText(/changed since it was read/).waitFor();
    expect((await send(h, 'GET', '/memories/users/me/preferences.md', alice)).json.content).toBe('spaces\n');
    expect(pageErrors).toEqual([]);
  });
});
