import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleBrowser, PHONE, seriousViolations, shot } from './support/browser';
import type { Harness } from './support/harness';

describe('the console: keyboard and accessibility', () => {
  let h: Harness;
  let browser: ConsoleBrowser;
  beforeAll(async () => ({ h, browser } = await ConsoleBrowser.open()));
  afterAll(() => browser?.closeAll());
  afterEach(() => browser.settle());

  it('Enter sends, Shift+Enter starts a new line, Esc stops the answer', async () => {
    const page = await browser.signIn('wren', 'Wren');
    await page.getByTestId('agent').selectOption('tester');
    const composer = page.getByTestId('composer');
    await composer.focus();
    await page.keyboard.type('First line');
    await page.keyboard.press('Shift+Enter');
    await page.keyboard.type('second line');
    expect(await composer.inputValue()).toBe('First line\nsecond line');
    expect(h.fake.requests).toHaveLength(0);

    h.fake.script({ text: Array.from({ length: 60 }, (_, i) => `word${i} `), deltaDelayMs: 50 }, { text: 'never asked' });
    await page.keyboard.press('Enter');
    await page.getByTestId('message-user').getByText('second line', { exact: false }).waitFor();
    expect(await composer.inputValue()).toBe('');
    await page.getByTestId('message-assistant').getByText('word2', { exact: false }).waitFor();
    await page.keyboard.press('Escape');
    await page.getByTestId('message-assistant').getByTestId('stopped').getByText('Stopped').waitFor();
    expect(h.fake.requests).toHaveLength(1);
    expect(JSON.stringify(h.fake.requests[0]!.body.messages)).toContain('First line\\nsecond line');
  }, 60_000);

  it('every control can be reached by Tab and shows where the focus is', async () => {
    const page = await browser.signIn('yara', 'Yara');
    const reached: string[] = [];
    // Tab through the page (the composer comes after the sidebar and the message settings) until it comes back round.
    for (let i = 0; i < 40 && !reached.includes('composer'); i++) {
      await page.keyboard.press('Tab');
      reached.push(await page.evaluate(() => document.activeElement?.getAttribute('data-testid') ?? document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.tagName ?? ''));
    }
    expect(reached).toEqual(expect.arrayContaining(['new-session', 'session-search', 'sign-out', 'agent', 'composer']));
    // The control the keyboard reached shows a visible ring.
    expect(await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle)).toBe('solid');
    expect(await page.evaluate(() => getComputedStyle(document.activeElement!).outlineWidth)).toBe('2px');
  }, 60_000);

  for (const colorScheme of ['light', 'dark'] as const) {
    it(`axe-core finds no serious violation in the ${colorScheme} theme: sign-in, an answer with Markdown, tools, a delegation and an error, the members panel`, async () => {
      const signIn = await browser.newPage({ colorScheme });
      await signIn.goto(`${h.url}/`);
      await signIn.getByTestId('api-key').waitFor();
      expect(await seriousViolations(signIn)).toEqual([]);

      const page = await browser.signIn(`zed-${colorScheme}`, 'Zed', { colorScheme });
      expect(await seriousViolations(page)).toEqual([]);
      const usage = { input_tokens: 100, output_tokens: 10 };
      h.fake.script(
        { text: '## Plan\n\nFirst `check`, then:\n\n```bash\nnpm test\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n[link](https://example.com)', toolCalls: [{ id: 'toolu_deleg', name: 'delegate_agent', input: { agent_id: 'cereal', task: 'Look.' } }], usage },
        { text: 'Looked: **fine**.', toolCalls: [{ id: 'toolu_info', name: 'get_agent_info', input: { agent_id: 'phreak' } }], usage },
        { text: 'All fine.', usage },
        { text: 'Done.', usage },
      );
      await page.getByTestId('composer').fill('Check it');
      await page.getByTestId('send').click();
      await page.getByTestId('message-assistant').getByText('Done.').waitFor();
      await page.getByTestId('delegation').locator('summary').first().click();
      h.fake.script({ status: 400 });
      await page.getByTestId('composer').fill('Again');
      await page.getByTestId('send').click();
      await page.getByTestId('run-error').last().waitFor();
      await page.getByTestId('members').click();
      expect(await seriousViolations(page)).toEqual([]);
      await shot(page, `40-a11y-${colorScheme}`);

      const phone = await browser.signIn(`zoe-${colorScheme}`, 'Zoe', { colorScheme, viewport: PHONE });
      expect(await seriousViolations(phone)).toEqual([]);
      await shot(phone, `41-a11y-${colorScheme}-phone`);
    }, 90_000);
  }
});
