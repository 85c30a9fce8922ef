import Anthropic from '@anthropic-ai/sdk';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleBrowser, PHONE, shot } from './support/browser';
import { DEV, getJson, openSessionAs, postJson, type Harness } from './support/harness';

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
    // A slow network: a session's detail arrives late, after the user has already moved on to a new session.
    await page.route(/\/api\/v2\/sessions\/[0-9a-f-]{36}$/, async (route) => {
      await new Promise((r) => setTimeout(r, 1_500));
      await route.continue().catch(() => undefined);
    });
    h.fake.script({ text: 'The first answer.', usage: { input_tokens: 500, output_tokens: 20 } });
    await page.getByTestId('composer').fill('A first question');
    await page.getByTestId('send').click();
    await assistant(page).getByTestId('run-status').getByText('completed').waitFor();
    await page.waitForURL(/#\/s\/[0-9a-f-]{36}$/);
    const first = new URL(page.url()).hash.slice('#/s/'.length);

    const late = page.waitForResponse((r) => r.url().endsWith(`/api/v2/sessions/${first}`));
    await page.getByTestId('new-session').click();
    await page.getByTestId('chat-empty').waitFor();
    // The first session's detail, read when its answer finished, arrives now: the new session stays new.
    await late;
    await page.waitForTimeout(100);
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

  it('agents of the same name (made through /v1) are told apart by their ids in the agent selector', async () => {
    const tia = await h.userHeaders('tia', 'Tia');
    const client = new Anthropic({ apiKey: tia.authorization!.replace(/^Bearer /, ''), baseURL: h.url, maxRetries: 0 });
    const one = await client.beta.agents.create({ name: 'Reviewer', model: 'claude-sonnet-4-6', system: 'You are one.' });
    const two = await client.beta.agents.create({ name: 'Reviewer', model: 'claude-sonnet-4-6', system: 'You are two.' });
    const page = await browser.signIn('tia', 'Tia');
    const labels = (await page.getByTestId('agent').locator('option').allTextContents()).map((t) => t.trim());
    const reviewers = labels.filter((label) => label.startsWith('Reviewer'));
    // Each agent is listed as its latest version and as version 1, all four told apart.
    expect(reviewers.sort()).toEqual([`Reviewer (${one.id} v1)`, `Reviewer (${one.id})`, `Reviewer (${two.id} v1)`, `Reviewer (${two.id})`].sort());
    expect(reviewers.some((label) => label.includes(one.id)) && reviewers.some((label) => label.includes(two.id))).toBe(true);
    // Names nobody else has stay as they are.
    expect(labels).toContain('Tester');
  }, 60_000);

  /** The box of an element, which must be on screen. */
  const box = async (page: Page, locator: ReturnType<Page['getByTestId']>) => {
    const b = await locator.boundingBox();
    if (!b) throw new Error('not rendered');
    return b;
  };
  const inside = (inner: { x: number; y: number; width: number; height: number }, outer: { x: number; y: number; width: number; height: number }) =>
    inner.x >= outer.x - 0.5 && inner.y >= outer.y - 0.5 && inner.x + inner.width <= outer.x + outer.width + 0.5 && inner.y + inner.height <= outer.y + outer.height + 0.5;

  it('lays out on a desktop and a phone: the sidebar holds its buttons, markers sit on their title line, the header keeps Rename and Delete on screen', async () => {
    const rita = await h.userHeaders('rita', 'Rita');
    const sol = await h.userHeaders('sol', 'Sol');
    const busy = await openSessionAs(h, rita, 'Incident review of the payment outage with every team involved last Tuesday');
    expect((await fetch(`${h.url}/api/v2/sessions/${busy}/members/sol`, { method: 'PUT', headers: { ...rita, 'content-type': 'application/json' }, body: JSON.stringify({ role: 'editor' }) })).status).toBe(201);
    const waiting = await openSessionAs(h, rita, 'Write the release notes for version two of the billing service');
    h.fake.script({ text: 'Writing. ', toolCalls: [{ name: 'ledger', input: { entry: 'notes' } }] });
    expect((await postJson(`${h.url}/api/v2/chat`, { session_id: waiting, message: 'Write them down' }, rita)).status).toBe(200);
    h.fake.script({ text: 'Noted.' });
    expect((await postJson(`${h.url}/api/v2/chat`, { session_id: busy, message: 'Status?' }, sol)).status).toBe(200);

    const page = await browser.signIn('rita', 'Rita');
    const sidebar = page.getByRole('complementary', { name: 'Sessions and account' });
    const busyLink = page.getByTestId('sessions').locator(`a[href="#/s/${busy}"]`);
    const waitingLink = page.getByTestId('sessions').locator(`a[href="#/s/${waiting}"]`);
    await busyLink.getByTestId('session-unread').waitFor();
    await waitingLink.getByTestId('session-waiting').waitFor();
    await shot(page, '60-sidebar-desktop');
    const side = await box(page, sidebar);
    for (const id of ['new-session', 'open-projects', 'open-memory', 'open-usage', 'open-evals', 'sign-out']) expect(inside(await box(page, page.getByTestId(id)), side), id).toBe(true);
    // A marker shares its line with the title, however long the title.
    const sameLine = async (link: typeof busyLink, marker: string) => {
      const title = await box(page, link.locator('.title'));
      const mark = await box(page, link.getByTestId(marker));
      const middle = mark.y + mark.height / 2;
      return middle > title.y && middle < title.y + Math.min(title.height, 28);
    };
    expect(await sameLine(busyLink, 'session-unread')).toBe(true);
    expect(await sameLine(waitingLink, 'session-waiting')).toBe(true);

    const phone = await browser.signIn('rita', 'Rita', { viewport: PHONE });
    await phone.goto(`${h.url}/#/s/${busy}`);
    await phone.getByTestId('session-title').getByText('Incident review', { exact: false }).waitFor();
    await shot(phone, '61-header-phone');
    const screen = { x: 0, y: 0, width: PHONE.width, height: PHONE.height };
    for (const id of ['rename', 'delete', 'members']) expect(inside(await box(phone, phone.getByTestId(id)), screen), id).toBe(true);
    // The members popover opens over the conversation, not over the session's settings.
    await phone.getByTestId('members').click();
    const popover = phone.getByTestId('members-panel');
    await popover.waitFor();
    await shot(phone, '62-members-phone');
    const pop = await box(phone, popover);
    expect(inside(pop, screen)).toBe(true);
    const settings = await box(phone, phone.locator('.settings'));
    expect(pop.y + pop.height <= settings.y + 0.5 || settings.y + settings.height <= pop.y + 0.5).toBe(true);
  }, 90_000);
});
