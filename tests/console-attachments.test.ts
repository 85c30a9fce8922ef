import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleBrowser, shot } from './support/browser';
import type { Harness } from './support/harness';
import { GIF, PDF, PNG } from './support/media';

/** The console's composer takes images and PDFs: picked, dropped or pasted, previewed, and sent to the model as blocks. */
describe('the console: attachments, in a real browser', () => {
  let h: Harness;
  let browser: ConsoleBrowser;
  beforeAll(async () => ({ h, browser } = await ConsoleBrowser.open()));
  afterAll(() => browser?.closeAll());
  afterEach(() => browser.settle());

  /** Drops (or pastes) a file on the composer as a browser does: a DataTransfer holding it. */
  const deliver = (page: Page, event: 'drop' | 'paste', file: { name: string; type: string; base64: string }) =>
    page.evaluate(
      ({ event, file }) => {
        const bytes = Uint8Array.from(atob(file.base64), (c) => c.charCodeAt(0));
        const transfer = new DataTransfer();
        transfer.items.add(new File([bytes], file.name, { type: file.type }));
        const target = document.querySelector(event === 'drop' ? '[data-testid=composer-form]' : '[data-testid=composer]')!;
        const init = { bubbles: true, cancelable: true };
        target.dispatchEvent(event === 'drop' ? new DragEvent('drop', { ...init, dataTransfer: transfer }) : new ClipboardEvent('paste', { ...init, clipboardData: transfer }));
      },
      { event, file },
    );

  it('picks a PNG and a PDF, drops a GIF, pastes another, previews them, takes one off, and sends the rest as image and document blocks', async () => {
    const page = await browser.signIn('iris', 'Iris');
    await page.getByTestId('agent').selectOption('tester');
    await page.getByTestId('attach-input').setInputFiles([
      { name: 'dot.png', mimeType: 'image/png', buffer: PNG },
      { name: 'spec.pdf', mimeType: 'application/pdf', buffer: PDF },
    ]);
    await deliver(page, 'drop', { name: 'drop.gif', type: 'image/gif', base64: GIF.toString('base64') });
    await deliver(page, 'paste', { name: 'pasted.png', type: 'image/png', base64: PNG.toString('base64') });
    const tray = page.getByTestId('attachment-tray');
    await tray.getByTestId('attachment-image').nth(2).waitFor();
    expect(await tray.getByTestId('attachment-image').evaluateAll((imgs) => imgs.map((i) => [(i as HTMLImageElement).alt, (i as HTMLImageElement).naturalWidth]))).toEqual([
      ['dot.png', 1],
      ['drop.gif', 1],
      ['pasted.png', 1],
    ]);
    expect(await tray.getByTestId('attachment-doc').textContent()).toBe('PDF · spec.pdf');
    await page.getByRole('button', { name: 'Remove pasted.png' }).click();
    await shot(page, 'console-attachments-tray');

    h.fake.script({ text: 'A dot, a spec and a gif.' });
    await page.getByTestId('composer').fill('What are these?');
    await page.getByTestId('send').click();
    await page.getByTestId('message-assistant').getByTestId('run-status').getByText('completed').waitFor();
    expect(h.fake.mediaBlocks().map((b) => [b.type, b.media_type])).toEqual([
      ['image', 'image/png'],
      ['document', 'application/pdf'],
      ['image', 'image/gif'],
    ]);
    // The sent message shows its attachments; the tray is empty again.
    const sent = page.getByTestId('message-user').last();
    expect(await sent.getByTestId('attachment-image').count()).toBe(2);
    expect(await sent.getByTestId('attachment-doc').textContent()).toBe('PDF · spec.pdf');
    expect(await page.getByTestId('attachment-tray').count()).toBe(0);

    // Reloaded, the message shows them again, read from the session with the key.
    await page.reload();
    const reloaded = page.getByTestId('message-user').last();
    await reloaded.getByTestId('attachment-doc').waitFor();
    await expect.poll(() => reloaded.getByTestId('attachment-image').evaluateAll((imgs) => imgs.map((i) => (i as HTMLImageElement).naturalWidth))).toEqual([1, 1]);
    expect(await reloaded.getByTestId('attachment-image').evaluateAll((imgs) => imgs.every((i) => (i as HTMLImageElement).src.startsWith('blob:')))).toBe(true);
  });

  it('says at once why a file cannot be attached, naming the limit', async () => {
    const page = await browser.signIn('otto', 'Otto');
    const big = Buffer.concat([PNG, Buffer.alloc(6 * 1024 * 1024)]);
    await page.getByTestId('attach-input').setInputFiles([
      { name: 'huge.png', mimeType: 'image/png', buffer: big },
      { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello') },
    ]);
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('huge.png is 6.0 MiB; the limit for an image is 5 MiB');
    expect(await alert.textContent()).toContain('notes.txt: only PNG, JPEG, GIF and WebP images and PDFs can be attached');
    expect(await page.getByTestId('attachment-tray').count()).toBe(0);
  });
});
