import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sessionDetailSchema } from '@zero/agent/wire';
import { ConsoleBrowser, shot, shownSession } from './support/browser';
import { getJson, type Harness } from './support/harness';
import { RUBRIC, isGrader, lyonThenParis, verdict } from './support/outcome-graders';

/** Outcomes in the console (issue 34): a Rubric box by the message box, "grading…", then each iteration's grade and the grader's reasons. */
describe('the console: a message with a rubric, graded, in a real browser', () => {
  let h: Harness;
  let browser: ConsoleBrowser;
  beforeAll(async () => ({ h, browser } = await ConsoleBrowser.open()));
  afterAll(() => browser?.closeAll());
  afterEach(() => browser.settle());

  const grades = (page: Page) => page.getByTestId('outcome');
  /** Both iterations' grades, as the page shows them: result, "iteration n of max", reasons. */
  async function bothGrades(page: Page) {
    await grades(page).filter({ hasText: 'accepted' }).waitFor().catch(async (e: unknown) => {
      throw new Error(`${String(e)}\nshown: ${await page.getByTestId('messages').textContent()}`);
    });
    const sentBack = grades(page).filter({ hasText: 'sent back' });
    expect(await sentBack.textContent()).toContain('iteration 1 of 3');
    expect(await sentBack.getByTestId('outcome-reasons').textContent()).toBe('It names Lyon, not Paris: say Paris.');
    const accepted = grades(page).filter({ hasText: 'accepted' });
    expect(await accepted.textContent()).toContain('iteration 2 of 3');
    expect(await accepted.getByTestId('outcome-reasons').textContent()).toBe('Names Paris.');
    // Each grade is under its own answer.
    await page.getByTestId('message-assistant').filter({ hasText: 'Lyon is the capital' }).filter({ hasText: 'sent back' }).waitFor();
    await page.getByTestId('message-assistant').filter({ hasText: 'Paris is the capital' }).filter({ hasText: 'accepted' }).waitFor();
  }

  it('sends the rubric typed in the box (opened from the keyboard) with the message; the first grade sends the agent back, the second accepts; both stay after a reload', async () => {
    h.fake.respondWith(lyonThenParis);
    const ada = await browser.signIn('ada', 'Ada');
    await ada.getByTestId('agent').selectOption('tester');
    // Collapsed until opened: the button says so, and opens it from the keyboard.
    expect(await ada.getByTestId('rubric').count()).toBe(0);
    const toggle = ada.getByTestId('rubric-toggle');
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    await toggle.focus();
    await ada.keyboard.press('Enter');
    expect(await toggle.getAttribute('aria-expanded')).toBe('true');
    await ada.keyboard.press('Tab');
    expect(await ada.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('rubric');
    await ada.keyboard.type(RUBRIC);
    await ada.getByTestId('composer').fill('What is the capital of France?');
    await ada.getByTestId('composer').press('Enter');

    await bothGrades(ada);
    await shot(ada, 'console-outcomes-graded');
    // The rubric went with the message, to the grader; the box is empty and closed for the next message.
    const graderCalls = h.fake.requests.filter(isGrader);
    expect(graderCalls).toHaveLength(2);
    for (const call of graderCalls) expect(JSON.stringify(call.body.messages)).toContain(RUBRIC);
    expect(await ada.getByTestId('rubric').count()).toBe(0);

    // The grades are in the session's stored history (`outcome_grades`) and show again on reload.
    const id = await shownSession(ada);
    const detail = sessionDetailSchema.parse((await getJson(`${h.url}/api/v2/sessions/${id}`, await h.userHeaders('ada', 'Ada'))).json);
    expect(detail.outcome_grades?.map((g) => [g.iteration, g.result])).toEqual([
      [0, 'needs_revision'],
      [1, 'satisfied'],
    ]);
    await ada.reload();
    await bothGrades(ada);
  });

  it('shows "grading…" while the grader works', async () => {
    let release!: () => void;
    const graderMayAnswer = new Promise<void>((resolve) => (release = resolve));
    // The grader's answer waits until the page has shown "grading…".
    h.fake.respondWith((request) => (isGrader(request) ? { ...verdict('satisfied', 1, 'Names Paris.'), after: graderMayAnswer } : { text: 'Paris is the capital of France.' }));
    const ada = await browser.signIn('ada', 'Ada');
    await ada.getByTestId('agent').selectOption('tester');
    await ada.getByTestId('rubric-toggle').click();
    await ada.getByTestId('rubric').fill(RUBRIC);
    await ada.getByTestId('composer').fill('Capital of France?');
    await ada.getByTestId('send').click();
    await grades(ada).getByText('grading…').waitFor();
    release();
    await grades(ada).filter({ hasText: 'accepted' }).waitFor();
    expect(await grades(ada).count()).toBe(1);
  });
});
