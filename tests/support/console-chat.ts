import type { Page } from 'playwright-core';

/** The assistant's messages the console's chat shows, in order. */
export const assistantMessages = (page: Page) => page.getByTestId('message-assistant');

/** Sends `text` as the next message from the console's message box, as a person does: type, then Send. */
export async function ask(page: Page, text: string): Promise<void> {
  await page.getByTestId('composer').fill(text);
  await page.getByTestId('send').click();
}
