import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { historyToUIMessages } from '@zero/agent/ui';
import { sessionDetailSchema } from '@zero/agent/wire';
import { ask, assistantMessages } from './support/console-chat';
import { ConsoleBrowser, shot, shownSession } from './support/browser';
import { getJson, type Harness } from './support/harness';
import { NodeChat, newChatId } from './support/node-chat';

/** Steering a conversation from the console (issue 36): edit, regenerate, branch arrows, fork, model and effort, thinking, cost. */
describe('the console: steering a session, in a real browser', () => {
  let h: Harness;
  let browser: ConsoleBrowser;
  beforeAll(async () => ({ h, browser } = await ConsoleBrowser.open()));
  afterAll(() => browser?.closeAll());
  afterEach(() => browser.settle());

  const question = (page: Page) => page.getByTestId('message-user');
  const usage = { input_tokens: 100, output_tokens: 10 };
  /** Waits until the last answer says `text` and its run has ended. */
  async function answered(page: Page, text: string) {
    await assistantMessages(page).last().filter({ hasText: text }).getByTestId('run-status').getByText('completed').waitFor();
  }
  const readSession = async (id: string, headers: Record<string, string>, all = false) => sessionDetailSchema.parse((await getJson(`${h.url}/api/v2/sessions/${id}${all ? '?branches=all' : ''}`, headers)).json);

  it('edits a message in place, pages between its versions with the arrows, regenerates the answer; another member sees the branch live; the cost counts every version', async () => {
    const ada = await browser.signIn('ada', 'Ada');
    await ada.getByTestId('agent').selectOption('tester');
    h.fake.script({ text: 'Two.', usage });
    await ask(ada, 'what is 1+1?');
    await answered(ada, 'Two.');
    const id = await shownSession(ada);
    await ada.getByTestId('session-usage').getByText('110 tokens').waitFor();

    // Ben, an editor of the session, follows it.
    const adaKey = await h.userHeaders('ada', 'Ada');
    expect((await fetch(`${h.url}/api/v2/sessions/${id}/members/ben`, { method: 'PUT', headers: { ...adaKey, 'content-type': 'application/json' }, body: JSON.stringify({ role: 'editor' }) })).status).toBe(201);
    const ben = await browser.signIn('ben', 'Ben');
    await ben.goto(`${h.url}/#/s/${id}`);
    await assistantMessages(ben).filter({ hasText: 'Two.' }).waitFor();
    // Ada's message is hers to edit: Ben (an editor, not its author) has no Edit button on it.
    expect(await question(ben).getByTestId('edit').count()).toBe(0);

    // Ada edits her question: a new version, answered; the arrows show two.
    h.fake.script({ text: 'Four.', usage });
    await question(ada).getByTestId('edit').click();
    await ada.getByTestId('edit-input').fill('what is 2+2?');
    await ada.getByTestId('edit-save').click();
    await answered(ada, 'Four.');
    await question(ada).getByTestId('branch-position').getByText('2/2').waitFor();
    expect(await assistantMessages(ada).count()).toBe(1);
    // The model saw the edited question, not the first one or its answer.
    const call = JSON.stringify(h.fake.requests.at(-1)!.body.messages);
    expect(call).toContain('what is 2+2?');
    expect(call).not.toContain('Two.');

    // Ben sees the branch as it happens: said, and the new version shown.
    await ben.getByTestId('branch-note').getByText('Ada edited a message').waitFor();
    await assistantMessages(ben).filter({ hasText: 'Four.' }).getByTestId('run-status').waitFor();
    expect(await ben.getByTestId('messages').textContent()).not.toContain('Two.');
    await question(ben).getByTestId('branch-position').getByText('2/2').waitFor();

    // The arrows page back to the first version and forward again; an earlier version is read, not answered.
    await question(ada).getByTestId('branch-prev').click();
    await question(ada).getByTestId('branch-position').getByText('1/2').waitFor();
    expect(await question(ada).textContent()).toContain('what is 1+1?');
    expect(await assistantMessages(ada).textContent()).toContain('Two.');
    await ada.getByTestId('earlier-version').waitFor();
    expect(await ada.getByTestId('composer').count()).toBe(0);
    expect(await question(ada).getByTestId('edit').count()).toBe(0);
    await shot(ada, 'console-steer-earlier-version');
    await question(ada).getByTestId('branch-next').click();
    await question(ada).getByTestId('branch-position').getByText('2/2').waitFor();
    expect(await assistantMessages(ada).textContent()).toContain('Four.');
    await ada.getByTestId('composer').waitFor();

    // Regenerate: the same question answered again, a third version.
    h.fake.script({ text: 'Four, again.', usage });
    await assistantMessages(ada).getByTestId('regenerate').click();
    await answered(ada, 'Four, again.');
    await question(ada).getByTestId('branch-position').getByText('3/3').waitFor();
    expect(await question(ada).textContent()).toContain('what is 2+2?');
    // Every version's answer cost what it cost: three runs of 110 tokens, on Ada's page and Ben's.
    await ada.getByTestId('session-usage').getByText('330 tokens').waitFor();
    await ben.getByTestId('session-usage').getByText('330 tokens').waitFor();
    await shot(ada, 'console-steer-versions');

    const all = await readSession(id, adaKey, true);
    expect(all.branches?.map((b) => b.author?.id)).toEqual(['ada', 'ada']);
  }, 90_000);

  it('forks after an answer: a new session opens with the history up to there, and the original goes on without it', async () => {
    const page = await browser.signIn('fay', 'Fay');
    await page.getByTestId('agent').selectOption('tester');
    h.fake.script({ text: 'One.' });
    await ask(page, 'first question');
    await answered(page, 'One.');
    h.fake.script({ text: 'Two.' });
    await ask(page, 'second question');
    await answered(page, 'Two.');
    const original = await shownSession(page);

    await assistantMessages(page).first().getByTestId('fork').click();
    await page.waitForURL((url) => /^#\/s\/.+/.test(url.hash) && !url.hash.endsWith(original));
    const fork = new URL(page.url()).hash.slice('#/s/'.length);
    await assistantMessages(page).filter({ hasText: 'One.' }).waitFor();
    expect(await page.getByTestId('messages').textContent()).not.toContain('second question');
    expect(await assistantMessages(page).count()).toBe(1);
    const fay = await h.userHeaders('fay', 'Fay');
    expect((await readSession(fork, fay)).session.forked_from?.session_id).toBe(original);

    // The fork answers on its own; the model sees the fork's history only.
    h.fake.script({ text: 'Forked answer.' });
    await ask(page, 'a different second question');
    await answered(page, 'Forked answer.');
    const call = JSON.stringify(h.fake.requests.at(-1)!.body.messages);
    expect(call).toContain('first question');
    expect(call).not.toContain('Two.');
    expect(JSON.stringify((await readSession(original, fay)).history)).not.toContain('Forked answer.');
  }, 60_000);

  it('shows "thinking…" until the model says something, the model and effort of each answer (switchable per message), and the cost as it grows', async () => {
    const page = await browser.signIn('tom', 'Tom');
    await page.getByTestId('agent').selectOption('tester');
    // Whether the indicator and the answer's words are on the page, at each change of the messages.
    await page.evaluate(() => {
      const seen: { thinking: boolean; text: boolean }[] = [];
      (window as unknown as { seen: typeof seen }).seen = seen;
      new MutationObserver(() => {
        const text = [...document.querySelectorAll('[data-testid=message-assistant]')].some((m) => m.textContent?.includes('Hello there.'));
        seen.push({ thinking: Boolean(document.querySelector('[data-testid=thinking-indicator]')), text });
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    });
    h.fake.script({ text: 'Hello there.', usage });
    await ask(page, 'hello');
    await answered(page, 'Hello there.');
    const seen = await page.evaluate(() => (window as unknown as { seen: { thinking: boolean; text: boolean }[] }).seen);
    // The indicator showed before the first words, never with them, and is gone after.
    const firstText = seen.findIndex((s) => s.text);
    expect(seen.slice(0, firstText).some((s) => s.thinking)).toBe(true);
    expect(seen.some((s) => s.thinking && s.text)).toBe(false);
    expect(await page.getByTestId('thinking-indicator').count()).toBe(0);
    // The tester's model, which cannot think.
    expect(await assistantMessages(page).getByTestId('answer-model').textContent()).toBe('claude-test-model · no thinking');
    const before = await page.getByTestId('session-usage').textContent();
    expect(before).toContain('110 tokens');

    // The next message on another of the deployment's models, at low effort.
    const other = await page.getByTestId('model').evaluate((select) => [...(select as HTMLSelectElement).options].map((o) => o.value).find((v) => v && v !== 'claude-test-model'));
    expect(other).toBeTruthy();
    await page.getByTestId('model').selectOption(other!);
    await page.getByTestId('effort').selectOption('low');
    h.fake.script({ text: 'Thought about it.', usage });
    await ask(page, 'think a little');
    await answered(page, 'Thought about it.');
    expect(h.fake.requests.at(-1)!.body).toMatchObject({ model: other, thinking: { type: 'enabled', budget_tokens: 2048 } });
    expect(await assistantMessages(page).last().getByTestId('answer-model').textContent()).toBe(`${other} · low effort`);
    expect(await assistantMessages(page).first().getByTestId('answer-model').textContent()).toBe('claude-test-model · no thinking');
    await page.getByTestId('session-usage').getByText('220 tokens').waitFor();
    expect(await page.getByTestId('session-usage').textContent()).not.toBe(before);

    // Reloaded, each answer still names its model and effort (recorded with its message).
    await page.reload();
    await assistantMessages(page).last().getByTestId('answer-model').getByText(`${other} · low effort`).waitFor();
    expect(await assistantMessages(page).first().getByTestId('answer-model').textContent()).toBe('claude-test-model · no thinking');
    await shot(page, 'console-steer-model');
  }, 60_000);

  it("edits a message through the AI SDK's chat client: sendMessage with a stored message's id branches there", async () => {
    const headers = await h.userHeaders('uli', 'Uli');
    const id = newChatId();
    const first = new NodeChat(h.url, id, headers, { agent_id: 'tester' });
    h.fake.script({ text: 'Paris.' });
    await first.sendMessage({ text: 'capital of France?' });
    expect(first.error).toBeUndefined();

    // An app opens the chat from the session's history, as useChat({ messages }) does, and edits the question.
    const chat = new NodeChat(h.url, id, headers);
    chat.plain.messages = historyToUIMessages((await readSession(id, headers)).history);
    const asked = chat.messages.find((m) => m.role === 'user')!;
    expect(asked.id).toMatch(/:user$/);
    h.fake.script({ text: 'Rome.' });
    await chat.sendMessage({ text: 'capital of Italy?', messageId: asked.id });
    expect(chat.error).toBeUndefined();
    expect(chat.messages.map((m) => [m.role, m.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('')])).toEqual([
      ['user', 'capital of Italy?'],
      ['assistant', 'Rome.'],
    ]);
    expect(JSON.stringify(h.fake.requests.at(-1)!.body.messages)).not.toContain('Paris.');
    const view = await readSession(id, headers);
    expect(view.branches).toHaveLength(1);
    expect(view.history.flatMap((r) => (r.kind === 'user_message' ? [r.text] : []))).toEqual(['capital of Italy?']);

    // A message id Zero never gave (the client's own, for a message sent in this page) is refused by name.
    const stale = new NodeChat(h.url, id, headers);
    stale.plain.messages = [{ id: 'client-made-id', role: 'user', parts: [{ type: 'text', text: 'capital of Spain?' }] }];
    await stale.sendMessage({ text: 'capital of Spain?', messageId: 'client-made-id' });
    expect(stale.error?.message).toContain('messageId');
    expect(stale.error?.message).toContain('is not a message id Zero gave');
  });
});
