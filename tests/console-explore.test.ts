import { it } from 'vitest';
import { ConsoleBrowser, shot } from './support/browser';
import { startHarness } from './support/harness';

it('explore', async () => {
  const h = await startHarness();
  const b = await ConsoleBrowser.launch(h);
  const page = await b.signIn('x', 'X');
  await page.getByTestId('agent').selectOption('tester');
  h.fake.script({ status: 400 });
  await page.getByTestId('composer').fill('hi');
  await page.getByTestId('send').click();
  await page.waitForTimeout(2000);
  await shot(page, 'x-error');
  console.log(await page.getByTestId('messages').innerHTML());
  await page.reload();
  await page.waitForTimeout(2000);
  await shot(page, 'x-error-reload');
  console.log(await page.getByTestId('messages').innerHTML());
  await b.close(); await h.close();
}, 60000);
