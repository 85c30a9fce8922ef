import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { agentColour } from '../console/src/agent-colour';
import { syncAgents } from '../local/stack';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ask, assistantMessages } from './support/console-chat';
import { ConsoleBrowser, PHONE, shot } from './support/browser';
import { getJson, openSessionAs, postJson, type Harness } from './support/harness';
import { chatStream } from './support/sse';

const ANSWER = [
  '# Release notes\n\n',
  'The build is **green** and *fast*.\n\n',
  '- one item\n- two items\n\n',
  '| Tool | Calls |\n|---|---|\n| echo | 3 |\n\n',
  '```ts\nconst answer: number = 42;\n```\n\n',
  'See [the docs](https://example.com/docs).\n\n',
  'Raw <img src="x" onerror="window.__pwned = 1"> and <script>window.__pwned = 2</script> stay text.',
];

/** The console's chat as people use it every day: Markdown answers, copy buttons, errors with a retry. */
describe('the console chat, in a real browser', () => {
  let h: Harness;
  let browser: ConsoleBrowser;
  beforeAll(async () => ({ h, browser } = await ConsoleBrowser.open()));
  afterAll(() => browser?.closeAll());
  afterEach(() => browser.settle());

  it('renders an answer as Markdown while it streams, without raw HTML, with safe links, highlighted code and copy buttons', async () => {
    const page = await browser.signIn('mara', 'Mara');
    await page.getByTestId('agent').selectOption('tester');
    h.fake.script({ text: ANSWER, deltaDelayMs: 250 });
    await ask(page, 'Write the release notes');

    // The heading is on screen while the rest still streams, and it is the same element at the end: nothing is redrawn from scratch.
    const heading = assistantMessages(page).locator('.markdown h1');
    await heading.waitFor();
    expect(await assistantMessages(page).getByTestId('run-status').count()).toBe(0);
    const first = await heading.elementHandle();
    await assistantMessages(page).getByTestId('run-status').getByText('completed').waitFor();
    expect(await first!.evaluate((el) => el.isConnected)).toBe(true);
    expect(await heading.textContent()).toBe('Release notes');

    const answer = assistantMessages(page).getByTestId('markdown');
    expect(await answer.locator('strong').textContent()).toBe('green');
    expect(await answer.locator('em').textContent()).toBe('fast');
    expect(await answer.locator('ul > li').allTextContents()).toEqual(['one item', 'two items']);
    expect(await answer.locator('table td').allTextContents()).toEqual(['echo', '3']);
    const link = answer.getByRole('link', { name: 'the docs' });
    expect(await link.getAttribute('href')).toBe('https://example.com/docs');
    expect(await link.getAttribute('rel')).toBe('noopener noreferrer');
    expect(await link.getAttribute('target')).toBe('_blank');
    // The model's HTML is shown as text, never made into elements.
    expect(await answer.locator('img, script').count()).toBe(0);
    expect(await answer.textContent()).toContain('<img src="x"');
    expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined();

    const code = answer.getByTestId('code-block');
    expect(await code.locator('.code-language').textContent()).toBe('ts');
    expect(await code.locator('.hljs-keyword').first().textContent()).toBe('const');
    await code.getByTestId('copy-code').click();
    await code.getByTestId('copy-code').getByText('Copied').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe('const answer: number = 42;');

    await assistantMessages(page).getByTestId('copy-answer').click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(ANSWER.join(''));
    // A person's own message is shown as typed.
    expect(await page.getByTestId('message-user').locator('.markdown').count()).toBe(0);
    await shot(page, '20-markdown-answer');
  }, 60_000);

  it('renders Markdown on a phone-sized screen without overflowing it', async () => {
    const page = await browser.signIn('nils', 'Nils', { viewport: PHONE });
    await page.getByTestId('agent').selectOption('tester');
    h.fake.script({ text: ANSWER });
    await ask(page, 'Release notes, please');
    await assistantMessages(page).getByTestId('run-status').getByText('completed').waitFor();
    await assistantMessages(page).locator('.markdown table').waitFor();
    // The page itself never scrolls sideways; a wide table or code block scrolls within its box.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    await shot(page, '21-markdown-answer-phone');
  }, 60_000);

  it('marks each agent’s answers with its colour and domain: the file’s color, else one its domain picks', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'zero-console-agents-'));
    writeFileSync(join(dir, 'razor.md'), '---\nname: Razor\ndescription: Reads licences.\ndomain: licence compliance\ntools: []\n---\n\nYou read licences.\n');
    await syncAgents(h.stack.store, dir);
    const page = await browser.signIn('rita', 'Rita');
    await page.getByTestId('agent').selectOption('cereal');
    h.fake.script({ text: 'Dependencies checked.' });
    await ask(page, 'Check the dependencies');
    await assistantMessages(page).getByTestId('run-status').waitFor();
    expect(await assistantMessages(page).getByTestId('agent-domain').textContent()).toBe('supply-chain security');
    // Cereal's file says yellow.
    expect(await assistantMessages(page).getByTestId('agent-dot').evaluate((el) => getComputedStyle(el).backgroundColor)).toBe('rgb(212, 165, 20)');

    await shot(page, '24-agent-colour');

    // Razor's file names no colour: its domain picks one.
    const other = await browser.signIn('raoul', 'Raoul');
    await other.getByTestId('agent').selectOption('razor');
    h.fake.script({ text: 'MIT, mostly.' });
    await ask(other, 'Which licences?');
    await assistantMessages(other).getByTestId('run-status').waitFor();
    expect(await assistantMessages(other).getByTestId('agent-domain').textContent()).toBe('licence compliance');
    const hex = agentColour({ domain: 'licence compliance' })!;
    const rgb = `rgb(${[1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)).join(', ')})`;
    expect(await assistantMessages(other).getByTestId('agent-dot').evaluate((el) => getComputedStyle(el).backgroundColor)).toBe(rgb);
  }, 60_000);

  it('a failed answer names the agent, says what happened in a sentence with its code, and Retry sends the message again', async () => {
    const page = await browser.signIn('olga', 'Olga');
    await page.getByTestId('agent').selectOption('tester');
    h.fake.script({ status: 400 });
    await ask(page, 'Summarise the report');
    const failed = page.getByTestId('run-error');
    await failed.waitFor();
    expect(await failed.textContent()).toContain('Tester could not answer. The model API refused the request.');
    expect(await failed.getByTestId('error-code').textContent()).toBe('model_error');
    expect(await failed.textContent()).toContain('scripted 400');
    // Neither the upstream JSON nor a nameless "Agent".
    expect(await page.getByTestId('messages').textContent()).not.toContain('{"type"');
    expect(await assistantMessages(page).getByTestId('author').textContent()).toBe('Tester');
    await shot(page, '22-error-with-retry');

    h.fake.script({ text: 'Here is the summary.' });
    await failed.getByTestId('retry').click();
    await assistantMessages(page).getByText('Here is the summary.').waitFor();
    expect(h.fake.requests).toHaveLength(2);
    expect(JSON.stringify(h.fake.requests[1]!.body.messages)).toContain('Summarise the report');

    // In a session that already has answers, a failure while streaming reads the same way.
    h.fake.script({ status: 401 });
    await ask(page, 'And the appendix?');
    // The first failure stays in the history; the new one is the last.
    const second = page.getByTestId('run-error').last();
    await second.getByText("The model API refused this deployment's key.", { exact: false }).waitFor();
    expect(await second.getByTestId('error-code').textContent()).toBe('model_error');
    expect(await page.getByTestId('messages').textContent()).not.toContain('{"type"');
    await shot(page, '23-error-while-streaming');
  }, 60_000);

  it("shows a delegation nested under the answer: the hand-over, the delegate's own words and tool calls, collapsible, and its usage; a reload shows the same", async () => {
    const page = await browser.signIn('pia', 'Pia');
    const usage = { input_tokens: 100, output_tokens: 10 };
    h.fake.script(
      { text: 'Bringing in Cereal.', toolCalls: [{ id: 'toolu_deleg', name: 'delegate_agent', input: { agent_id: 'cereal', task: 'Is lodash vulnerable in acme/web?' } }], usage },
      { text: 'Checking the agent list.', toolCalls: [{ id: 'toolu_info', name: 'get_agent_info', input: { agent_id: 'phreak' } }], usage },
      { text: ['lodash 4.17.20 is **vulnerable**; ', 'upgrade ', 'to ', '4.17.21.'], usage, deltaDelayMs: 400 },
      { text: 'Cereal found one problem: lodash.', usage },
    );
    await ask(page, 'Is acme/web safe?');
    const delegation = assistantMessages(page).getByTestId('delegation');
    // While cereal works, its part is open and says so.
    await delegation.getByTestId('delegation-status').getByText('working…').waitFor();
    expect(await delegation.getByTestId('handover').textContent()).toBe('zero → cereal');
    expect(await delegation.evaluate((el) => (el as HTMLDetailsElement).open)).toBe(true);
    await shot(page, '24-delegation-working');

    await assistantMessages(page).getByText('Cereal found one problem: lodash.').waitFor();
    await delegation.getByTestId('delegation-status').getByText('handed back · 220 tokens', { exact: false }).waitFor();
    // Handed back: collapsed to its one line; the caller's answer does not repeat the delegate's words.
    expect(await delegation.evaluate((el) => (el as HTMLDetailsElement).open)).toBe(false);
    const callerWords = await assistantMessages(page).locator(':scope > .markdown').allTextContents();
    expect(callerWords).toEqual(['Bringing in Cereal.', 'Cereal found one problem: lodash.']);
    // No separate "delegate_agent done" line: the delegation is the call.
    expect(await assistantMessages(page).locator(':scope > [data-testid="tool-call"]').count()).toBe(0);

    await delegation.locator('summary').first().click();
    expect(await delegation.locator('.markdown strong').textContent()).toBe('vulnerable');
    const nestedCall = delegation.getByTestId('tool-call');
    expect(await nestedCall.locator('.tool-name').textContent()).toBe('get_agent_info');
    await nestedCall.getByText('done').waitFor();
    // Its words and its call in the order it made them.
    expect(await delegation.locator('.delegation-body > *').evaluateAll((els) => els.map((e) => e.getAttribute('data-testid')))).toEqual(['markdown', 'tool-call', 'markdown']);
    await shot(page, '25-delegation-opened');

    await page.reload();
    const reloaded = assistantMessages(page).getByTestId('delegation');
    await reloaded.getByTestId('delegation-status').getByText('handed back · 220 tokens', { exact: false }).waitFor();
    expect(await reloaded.getByTestId('handover').textContent()).toBe('zero → cereal');
    await reloaded.locator('summary').first().click();
    expect(await reloaded.getByTestId('tool-call').locator('.tool-name').textContent()).toBe('get_agent_info');
  }, 60_000);
  it("shows a run of a plan as a checklist in the answer, each step pending, started, done or failed as it reports; a reload shows the same", async () => {
    const page = await browser.signIn('pia', 'Pia');
    const pia = await h.userHeaders('pia', 'Pia');
    const id = await openSessionAs(h, pia, 'Lockfile audit');
    // The run reports, then waits on its next model call: the page opens while it runs.
    h.fake.script(
      { toolCalls: [{ id: 'toolu_cp1', name: 'plan_progress', input: { step: 1, status: 'started' } }] },
      {
        toolCalls: [
          { id: 'toolu_cp2', name: 'plan_progress', input: { step: 1, status: 'done', note: '212 packages' } },
          { id: 'toolu_cp3', name: 'plan_progress', input: { step: 2, status: 'failed', note: 'no advisory data' } },
          { id: 'toolu_cp4', name: 'plan_progress', input: { step: 3, status: 'started' } },
        ],
      },
      { hang: true },
    );
    const plan = { goal: 'Audit the lockfile', steps: ['Read package-lock.json', 'Rank the packages by risk', 'Write the report', 'File the issues'], agent: 'tester' };
    const sent = chatStream(h.url, { session_id: id, plan }, pia);
    await expect.poll(async () => (await getJson(`${h.url}/api/v2/sessions/${id}`, pia)).json?.active_run_id, { timeout: 10_000 }).toBeTruthy();

    await page.goto(`${h.url}/#/s/${id}`);
    const checklist = assistantMessages(page).getByTestId('plan');
    const statuses = () => checklist.getByTestId('plan-step').evaluateAll((els) => els.map((e) => [e.querySelector('.plan-title')?.textContent, e.getAttribute('data-status'), e.querySelector('.plan-note')?.textContent ?? '']));
    // Reports arrive one by one: wait until the last is shown.
    await expect.poll(statuses, { timeout: 20_000 }).toEqual([
      ['Read package-lock.json', 'done', ' — 212 packages'],
      ['Rank the packages by risk', 'failed', ' — no advisory data'],
      ['Write the report', 'started', ''],
      ['Step 4', 'pending', ''],
    ]);
    expect(await checklist.locator('.tool-label').textContent()).toBe('Plan · 1/4 done');
    await shot(page, '26-plan-progress');

    expect((await postJson(`${h.url}/api/v2/sessions/${id}/cancel`, {}, pia)).status).toBe(202);
    await sent;
    await page.reload();
    await expect.poll(statuses, { timeout: 20_000 }).toEqual([
      ['Read package-lock.json', 'done', ' — 212 packages'],
      ['Rank the packages by risk', 'failed', ' — no advisory data'],
      ['Write the report', 'started', ''],
      ['Step 4', 'pending', ''],
    ]);
  }, 60_000);
});
