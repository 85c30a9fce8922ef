import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureConsoleBuilt } from '../local/console-build';
import { launchChromium } from './support/browser';
import { startHarness, type Harness } from './support/harness';

const SCREENSHOTS = join(import.meta.dirname, 'screenshots');
const STEP_TIMEOUT = 20_000;

// The bundle under test is the one the sources make: rebuilt when a source is newer than it.
await ensureConsoleBuilt();

describe('the console in a real browser', () => {
  let h: Harness;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  /** Uncaught errors in the pages: a test fails on any. */
  const pageErrors: string[] = [];

  beforeAll(async () => {
    await mkdir(SCREENSHOTS, { recursive: true });
    h = await startHarness();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });
  afterEach(() => {
    h.fake.reset();
    expect(pageErrors).toEqual([]);
  });

  async function signIn(userId: string, name: string, viewport = { width: 1200, height: 800 }): Promise<Page> {
    const context = await browser.newContext({ viewport });
    contexts.push(context);
    const page = await context.newPage();
    page.setDefaultTimeout(STEP_TIMEOUT);
    page.on('pageerror', (error) => pageErrors.push(`[${userId}] ${error.stack ?? error.message}`));
    const key = (await h.userHeaders(userId, name)).authorization!.replace(/^Bearer /, '');
    await page.goto(`${h.url}/`);
    await page.getByTestId('api-key').fill(key);
    return page;
  }

  const shot = (page: Page, name: string) => page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
  const assistant = (page: Page) => page.getByTestId('message-assistant');

  it('a wrong key is refused at sign-in', async () => {
    const context = await browser.newContext();
    contexts.push(context);
    const page = await context.newPage();
    page.setDefaultTimeout(STEP_TIMEOUT);
    await page.goto(`${h.url}/`);
    await page.getByTestId('api-key').fill('zk_not_a_real_key');
    await page.getByTestId('sign-in').click();
    await page.getByRole('alert').getByText('That key is not valid.').waitFor();
    await shot(page, '01-sign-in-refused');
  });

  it('sign in, start a session, stream an answer with a tool call, reload to the history; a second member watches a run live and it is cancelled', async () => {
    // Alice signs in and starts a session with the tester agent.
    const alice = await signIn('alice', 'Alice');
    await alice.getByTestId('sign-in').click();
    await alice.getByTestId('new-session').waitFor();
    await alice.getByTestId('agent').selectOption('tester');
    await shot(alice, '02-new-session');

    h.fake.script(
      { text: ['Let me ', 'check. '], toolCalls: [{ name: 'echo', input: { text: 'hello' } }], deltaDelayMs: 20 },
      { text: ['The tool ', 'said ', 'hello.'], deltaDelayMs: 20 },
    );
    await alice.getByTestId('composer').fill('Please echo hello');
    await alice.getByTestId('send').click();

    await assistant(alice).getByText('The tool said hello.').waitFor();
    const tool = assistant(alice).getByTestId('tool-call');
    await tool.getByText('done').waitFor();
    expect(await tool.locator('.tool-name').textContent()).toBe('echo');
    // Collapsed until opened.
    expect(await tool.getByText('echo: hello').isVisible()).toBe(false);
    await tool.locator('summary').click();
    await tool.getByText('echo: hello').waitFor();
    await assistant(alice).getByTestId('run-status').getByText('completed').waitFor();
    // The session is listed under the first message's words, and the URL names it.
    await alice.getByTestId('sessions').getByText('Please echo hello').waitFor();
    await alice.waitForURL(/#\/s\/[0-9a-f-]{36}$/);
    const sessionId = new URL(alice.url()).hash.slice('#/s/'.length);
    await shot(alice, '03-streamed-answer');

    // A reload shows the stored history, with who wrote each message.
    await alice.reload();
    await assistant(alice).getByText('The tool said hello.').waitFor();
    expect(await alice.getByTestId('message-user').getByTestId('author').textContent()).toBe('Alice');
    expect(await alice.getByTestId('message-user').getByTestId('author-id').textContent()).toBe('alice');
    expect(await alice.getByTestId('message-user').textContent()).toContain('Please echo hello');
    await assistant(alice).getByTestId('tool-call').getByText('done').waitFor();
    expect(await alice.getByTestId('session-title').textContent()).toBe('Please echo hello');
    await shot(alice, '04-history-after-reload');

    // Alice shares the session with Bob through the members panel.
    await alice.getByTestId('members').click();
    await alice.getByPlaceholder('user id').fill('bob');
    await alice.getByRole('button', { name: 'Add' }).click();
    await alice.getByTestId('members').getByText('2 members').waitFor();

    // Bob opens it on a phone-sized screen.
    const bob = await signIn('bob', 'Bob', { width: 390, height: 844 });
    await bob.getByTestId('sign-in').click();
    await bob.getByTestId('new-session').waitFor({ state: 'attached' });
    await bob.goto(`${h.url}/#/s/${sessionId}`);
    await assistant(bob).getByText('The tool said hello.').waitFor();

    // Alice asks again; the second model call hangs, so the run is still going while Bob watches it.
    h.fake.script({ text: ['Looking ', 'again.'], toolCalls: [{ name: 'echo', input: { text: 'two' } }], deltaDelayMs: 20 }, { hang: true });
    await alice.getByTestId('composer').fill('And once more');
    await alice.getByTestId('send').click();

    const bobsView = bob.getByTestId('messages');
    await bobsView.getByTestId('message-user').filter({ hasText: 'And once more' }).getByTestId('author').getByText('Alice').waitFor();
    await assistant(bob).filter({ hasText: 'Looking again.' }).getByTestId('tool-call').getByText('done').waitFor();
    await shot(bob, '05-member-watching-live-phone');

    // Alice cancels the run; both see it end.
    await alice.getByTestId('cancel').click();
    await assistant(alice).filter({ hasText: 'Looking again.' }).getByTestId('run-status').getByText('cancelled').waitFor();
    await assistant(bob).filter({ hasText: 'Looking again.' }).getByTestId('run-status').getByText('cancelled').waitFor();
    await shot(alice, '06-cancelled');
    expect(h.fake.requests).toHaveLength(4);
  }, 90_000);

  it('a run cancelled while the model writes shows Stopped, not a failed model stream, and the model is not asked again', async () => {
    const carol = await signIn('carol', 'Carol');
    await carol.getByTestId('sign-in').click();
    await carol.getByTestId('new-session').waitFor();
    await carol.getByTestId('agent').selectOption('tester');
    h.fake.script({ text: Array.from({ length: 80 }, (_, i) => `word${i} `), deltaDelayMs: 50 }, { text: 'a second call that must not happen' });
    await carol.getByTestId('composer').fill('Write at length');
    await carol.getByTestId('send').click();
    await assistant(carol).getByText('word2', { exact: false }).waitFor();

    await carol.getByTestId('cancel').click();
    await assistant(carol).getByTestId('run-status').getByText('cancelled').waitFor();
    await assistant(carol).getByTestId('stopped').getByText('Stopped').waitFor();
    expect(await carol.getByText('The model stream failed').count()).toBe(0);
    expect(h.fake.requests).toHaveLength(1);
    await shot(carol, '07-stopped-mid-stream');
  }, 60_000);

  it("an agent's extended thinking shows as a closed Thinking block above its answer, which a reader can open", async () => {
    const erin = await signIn('erin', 'Erin');
    await erin.getByTestId('sign-in').click();
    await erin.getByTestId('new-session').waitFor();
    await erin.getByTestId('agent').selectOption('thinker');
    h.fake.script({ thinking: 'The user greets me. A short, friendly answer will do.', text: 'Hello, Erin.' });
    await erin.getByTestId('composer').fill('Hi');
    await erin.getByTestId('send').click();
    await assistant(erin).getByText('Hello, Erin.').waitFor();
    const block = assistant(erin).getByTestId('thinking');
    await block.waitFor();
    expect(await block.evaluate((el) => (el as HTMLDetailsElement).open)).toBe(false);
    expect(await block.getByText('A short, friendly answer').isVisible()).toBe(false);
    await block.locator('summary').click();
    await block.getByText('A short, friendly answer will do.').waitFor();
    await shot(erin, '10-thinking-opened');
  }, 60_000);

  it('a call that asks shows Approve / Deny to every member; a second member approves, the first sees it live and the run completes', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'zero-console-approvals-'));
    process.env.ZERO_TEST_LEDGER = join(dir, 'ledger.txt');
    const ledgerRuns = () => h.tools.executions.get('ledger') ?? 0;
    const dave = await signIn('dave', 'Dave');
    await dave.getByTestId('sign-in').click();
    await dave.getByTestId('new-session').waitFor();
    await dave.getByTestId('agent').selectOption('tester');
    h.fake.script({ text: 'Hello.' });
    await dave.getByTestId('composer').fill('Hi');
    await dave.getByTestId('send').click();
    await assistant(dave).getByTestId('run-status').getByText('completed').waitFor();
    await dave.waitForURL(/#\/s\/[0-9a-f-]{36}$/);
    const sessionId = new URL(dave.url()).hash.slice('#/s/'.length);
    const daveKey = await h.userHeaders('dave', 'Dave');
    const put = (path: string, body: unknown) =>
      fetch(`${h.url}/api/v2/sessions/${sessionId}${path}`, { method: 'PUT', headers: { 'content-type': 'application/json', ...daveKey }, body: JSON.stringify(body) });
    expect((await put('/permissions', { permissions: { ledger: 'ask' } })).status).toBe(200);
    expect((await put('/members/erin', { role: 'editor', name: 'Erin' })).status).toBe(201);

    const before = ledgerRuns();
    h.fake.script({ text: 'Writing it down. ', toolCalls: [{ name: 'ledger', input: { entry: 'console' } }] }, { text: 'Written down.' });
    await dave.getByTestId('composer').fill('Write it down');
    await dave.getByTestId('send').click();
    await dave.getByTestId('awaiting-approval').getByText('ledger').waitFor();
    const davesCall = assistant(dave).filter({ hasText: 'Writing it down.' });
    await davesCall.getByTestId('approve').waitFor();
    await davesCall.getByTestId('tool-call').getByText('waits for approval').waitFor();
    expect(ledgerRuns()).toBe(before);
    await shot(dave, '08-approval-pending');

    // Erin, an editor, opens the session: the call waits for her too.
    const erin = await signIn('erin', 'Erin');
    await erin.getByTestId('sign-in').click();
    await erin.getByTestId('new-session').waitFor({ state: 'attached' });
    await erin.goto(`${h.url}/#/s/${sessionId}`);
    await erin.getByTestId('awaiting-approval').waitFor();
    // Her sessions list marks the session as waiting.
    await erin.getByTestId('sessions').locator(`a[href="#/s/${sessionId}"]`).getByTestId('session-waiting').waitFor();
    const erinsCall = assistant(erin).filter({ hasText: 'Writing it down.' });
    await erinsCall.getByTestId('approval-message').fill('fine by me');
    await erinsCall.getByTestId('approve').click();

    // Dave sees Erin's decision live, the buttons go, and the run completes for both.
    await davesCall.getByTestId('approval-decided').getByText('Approved by Erin: fine by me').waitFor();
    await assistant(dave).getByText('Written down.').waitFor();
    await assistant(erin).getByText('Written down.').waitFor();
    await assistant(dave).filter({ hasText: 'Written down.' }).getByTestId('run-status').getByText('completed').waitFor();
    expect(await dave.getByTestId('approve').count()).toBe(0);
    expect(await dave.getByTestId('awaiting-approval').count()).toBe(0);
    expect(await erin.getByTestId('awaiting-approval').count()).toBe(0);
    expect(ledgerRuns()).toBe(before + 1);
    // Once the run is over, no session in Dave's list waits.
    await dave.getByTestId('sessions').locator(`a[href="#/s/${sessionId}"]`).waitFor();
    await expect.poll(() => dave.getByTestId('session-waiting').count(), { timeout: 15_000 }).toBe(0);
    await shot(dave, '09-approved-by-another-member');
    await rm(dir, { recursive: true, force: true });
  }, 90_000);

  afterAll(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
  });
});
