import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleBrowser, PHONE, shot, shownSession } from './support/browser';
import { getJson, type Harness, openSessionAs } from './support/harness';

/** Sessions, members and the account, as the console manages them. */
describe('the console: sessions, members and account', () => {
  let h: Harness;
  let browser: ConsoleBrowser;
  beforeAll(async () => ({ h, browser } = await ConsoleBrowser.open()));
  afterAll(() => browser?.closeAll());
  afterEach(() => browser.settle());

  const openSession = (headers: Record<string, string>, title: string) => openSessionAs(h, headers, title);
  const links = (page: Page) => page.getByTestId('sessions').getByTestId('session-link');
  const titles = async (page: Page) => (await links(page).locator('.title').allTextContents()).map((t) => t.trim());

  it('a new user sees what to do, and neither loading nor "New session" asks the API for a session that does not exist', async () => {
    const notFound: string[] = [];
    const page = await browser.signIn('rosa', 'Rosa');
    page.on('response', (r) => {
      if (r.status() === 404) notFound.push(r.url());
    });
    await page.getByTestId('sessions-empty').getByText('No sessions yet.', { exact: false }).waitFor();
    await page.getByTestId('chat-empty').getByText('Enter sends, Shift+Enter starts a new line', { exact: false }).waitFor();
    await page.getByTestId('new-session').click();
    await page.getByTestId('new-session').click();
    await page.getByTestId('chat-empty').waitFor();
    // Who is signed in, with which role, and a way out.
    expect(await page.getByTestId('account').textContent()).toContain('Rosa rosa');
    expect(await page.getByTestId('account-role').textContent()).toBe('user');
    await shot(page, '30-empty-state');
    expect(notFound).toEqual([]);

    // The first message makes the session: listed under its words, marked as the one open, with its agent; the session's usage shows.
    await page.getByTestId('agent').selectOption('tester');
    h.fake.script({ text: 'Noted.', usage: { input_tokens: 1200, output_tokens: 34 } });
    await page.getByTestId('composer').fill('Plan the migration of the billing tables to the new cluster next week');
    await page.getByTestId('send').click();
    await page.getByTestId('message-assistant').getByTestId('run-status').getByText('completed').waitFor();
    const link = links(page).first();
    await link.getByText('Plan the migration', { exact: false }).waitFor();
    expect(await link.getAttribute('aria-current')).toBe('page');
    expect(await link.getByTestId('session-meta').textContent()).toMatch(/^tester · just now$/);
    expect(await page.getByTestId('session-usage').textContent()).toBe('1,234 tokens · $0.0041');
    await page.getByTestId('account-role').getByText('user · owner of this session').waitFor();
    expect(notFound).toEqual([]);

    await page.getByTestId('sign-out').click();
    await page.getByTestId('api-key').waitFor();
  }, 60_000);

  it('rename, search by title, order by last activity, and delete (owners only)', async () => {
    const sam = await h.userHeaders('sam', 'Sam');
    const older = await openSession(sam, 'Quarterly report draft');
    const newer = await openSession(sam, 'Flaky test hunt');
    await new Promise((r) => setTimeout(r, 20));
    const shared = await openSession(sam, 'Shared incident notes');
    const putMember = await fetch(`${h.url}/api/v2/sessions/${shared}/members/tess`, { method: 'PUT', headers: { ...sam, 'content-type': 'application/json' }, body: JSON.stringify({ role: 'editor' }) });
    expect(putMember.status).toBe(201);

    const page = await browser.signIn('sam', 'Sam');
    await expect.poll(() => titles(page)).toEqual(['Shared incident notes', 'Flaky test hunt', 'Quarterly report draft']);

    // Renaming the oldest is activity: it moves to the top, under its new name.
    await page.goto(`${h.url}/#/s/${older}`);
    await page.getByTestId('rename').click();
    await page.getByTestId('rename-input').fill('Q3 report, final');
    await page.getByTestId('rename-input').press('Enter');
    await page.getByTestId('session-title').getByText('Q3 report, final').waitFor();
    await expect.poll(() => titles(page)).toEqual(['Q3 report, final', 'Shared incident notes', 'Flaky test hunt']);
    expect((await getJson(`${h.url}/api/v2/sessions/${older}`, sam)).json.session.title).toBe('Q3 report, final');
    // Esc abandons a rename.
    await page.getByTestId('rename').click();
    await page.getByTestId('rename-input').fill('never saved');
    await page.getByTestId('rename-input').press('Escape');
    expect(await page.getByTestId('session-title').textContent()).toBe('Q3 report, final');

    await page.getByTestId('session-search').fill('flaky');
    await expect.poll(() => titles(page)).toEqual(['Flaky test hunt']);
    await page.getByTestId('session-search').fill('nothing like it');
    await page.getByTestId('sessions').getByText('No session title contains “nothing like it”.').waitFor();
    await page.getByTestId('session-search').fill('');
    await shot(page, '31-sessions-renamed');

    // The owner deletes one: after a second click, it is gone, for the API too.
    await page.goto(`${h.url}/#/s/${newer}`);
    await page.getByTestId('session-title').getByText('Flaky test hunt').waitFor();
    await page.getByTestId('delete').click();
    await page.getByTestId('delete-confirm').click();
    await expect.poll(() => titles(page)).toEqual(['Q3 report, final', 'Shared incident notes']);
    await page.getByTestId('chat-empty').waitFor();
    expect((await getJson(`${h.url}/api/v2/sessions/${newer}`, sam)).status).toBe(404);

    // An editor may rename but is offered no delete.
    const tess = await browser.signIn('tess', 'Tess', { viewport: PHONE });
    await tess.goto(`${h.url}/#/s/${shared}`);
    await tess.getByTestId('session-title').getByText('Shared incident notes').waitFor();
    await tess.getByTestId('rename').waitFor();
    expect(await tess.getByTestId('delete').count()).toBe(0);
    await tess.getByRole('button', { name: 'Sessions' }).click();
    await tess.getByTestId('sessions').getByTestId('session-meta').getByText('tester · editor', { exact: false }).waitFor();
    await shot(tess, '32-sessions-phone');
  }, 60_000);

  it('an owner adds a member by a valid id, changes their role and removes them', async () => {
    const uma = await h.userHeaders('uma', 'Uma');
    const id = await openSession(uma, 'Team review');
    const page = await browser.signIn('uma', 'Uma');
    await page.goto(`${h.url}/#/s/${id}`);
    await page.getByTestId('members').click();

    // The picker checks the id before anything is sent.
    await page.getByTestId('member-id').fill('vic #2');
    await page.getByTestId('member-id-problem').getByText('must not contain spaces', { exact: false }).waitFor();
    expect(await page.getByRole('button', { name: 'Add' }).isDisabled()).toBe(true);
    await page.getByTestId('member-id').fill('uma');
    await page.getByTestId('member-id-problem').getByText('Already a member.').waitFor();

    await page.getByTestId('member-id').fill('vic');
    await page.getByLabel('Name (optional)').fill('Vic');
    await page.getByRole('button', { name: 'Add' }).click();
    const vic = page.locator('[data-testid="member"][data-user-id="vic"]');
    await vic.waitFor();
    expect(await vic.getByTestId('member-role').inputValue()).toBe('editor');

    await vic.getByTestId('member-role').selectOption('viewer');
    await expect.poll(async () => (await getJson(`${h.url}/api/v2/sessions/${id}/members`, uma)).json.members.find((m: { user_id: string }) => m.user_id === 'vic')?.role).toBe('viewer');
    await shot(page, '33-members');

    await vic.getByTestId('member-remove').click();
    await vic.waitFor({ state: 'detached' });
    expect((await getJson(`${h.url}/api/v2/sessions/${id}/members`, uma)).json.members.map((m: { user_id: string }) => m.user_id)).toEqual(['uma']);
    await page.getByTestId('members').getByText('1 member').waitFor();
  }, 60_000);
});
