import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleBrowser, shot } from './support/browser';
import { getJson, postJson, send, type Harness, openSessionAs } from './support/harness';

/** Who is watching, what is new since a member last looked, and searching past the loaded sessions, in the console. */
describe('the console: watchers, unread dots and title search', () => {
  let h: Harness;
  let browser: ConsoleBrowser;
  beforeAll(async () => ({ h, browser } = await ConsoleBrowser.open()));
  afterAll(() => browser?.closeAll());
  afterEach(() => browser.settle());

  const openSession = (headers: Record<string, string>, title: string) => openSessionAs(h, headers, title);

  it('an owner sees "watching now" beside the member who has the session open, until they leave it; that member sees a dot for news until they open it', async () => {
    const quinn = await h.userHeaders('quinn', 'Quinn');
    const id = await openSession(quinn, 'Release checklist');
    expect((await send(h, 'PUT', `/sessions/${id}/members/rhea`, quinn, { role: 'editor', name: 'Rhea' })).status).toBe(201);
    await openSession(quinn, 'Something else');
    // News Rhea has not seen: an answer in the shared session.
    h.fake.script({ text: 'All items are checked.' });
    expect((await postJson(`${h.url}/api/v2/chat`, { session_id: id, message: 'Status?' }, quinn)).status).toBe(200);

    const rhea = await browser.signIn('rhea', 'Rhea');
    const rheaLink = rhea.getByTestId('sessions').getByTestId('session-link').filter({ hasText: 'Release checklist' });
    await rheaLink.getByTestId('session-unread').waitFor();
    expect(await rheaLink.getByTestId('session-unread').getAttribute('aria-label')).toBe('new activity');
    await rheaLink.click();
    await rhea.getByTestId('session-title').getByText('Release checklist').waitFor();
    expect(await rheaLink.getByTestId('session-unread').count()).toBe(0);

    const owner = await browser.signIn('quinn', 'Quinn');
    await owner.goto(`${h.url}/#/s/${id}`);
    await owner.getByTestId('session-title').getByText('Release checklist').waitFor();
    // Quinn never opened it after the answer came in here, but this page is open on it now.
    expect(await owner.getByTestId('sessions').getByTestId('session-link').filter({ hasText: 'Release checklist' }).getByTestId('session-unread').count()).toBe(0);
    await owner.getByTestId('members').click();
    const rheaMember = owner.locator('[data-testid="member"][data-user-id="rhea"]');
    await rheaMember.getByTestId('member-watching').getByText('watching now').waitFor();
    await owner.getByTestId('watching-count').getByText('1 watching').waitFor();
    await shot(owner, '36-members-watching');

    // Rhea moves to a new chat: her live view of the session closes, and the marker goes within seconds.
    await rhea.getByTestId('new-session').click();
    await rheaMember.getByTestId('member-watching').waitFor({ state: 'detached', timeout: 15_000 });
    expect((await getJson(`${h.url}/api/v2/sessions/${id}/watchers`, quinn)).json.watchers.map((w: { user_id: string }) => w.user_id)).toEqual(['quinn']);
    // Having read it, she has no dot after a reload.
    await rhea.reload();
    await rheaLink.waitFor();
    expect(await rheaLink.getByTestId('session-unread').count()).toBe(0);
  }, 60_000);

  it('the search box finds a session older than the hundred the list loads', async () => {
    const sol = await h.userHeaders('sol', 'Sol');
    await openSession(sol, 'Vendor contract renewal');
    for (let n = 0; n < 100; n += 20) await Promise.all(Array.from({ length: 20 }, (_, i) => openSession(sol, `Daily notes ${n + i}`)));
    const page = await browser.signIn('sol', 'Sol');
    const titles = async () => (await page.getByTestId('sessions').getByTestId('session-link').locator('.title').allTextContents()).map((t) => t.trim());
    // The list and the search answer from the server: seconds on a loaded machine (expect.poll waits 1 s unless told).
    await expect.poll(async () => (await titles()).length, { timeout: 15_000 }).toBe(100);
    expect(await titles()).not.toContain('Vendor contract renewal');
    await page.getByTestId('session-search').fill('contract');
    await expect.poll(titles, { timeout: 15_000 }).toEqual(['Vendor contract renewal']);
    await page.getByTestId('session-search').fill('no such title');
    await page.getByTestId('sessions').getByText('No session title contains “no such title”.').waitFor();
  }, 60_000);
});
