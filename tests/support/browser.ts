import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { ensureConsoleBuilt } from '../../local/console-build';
import { expect } from 'vitest';
import { startHarness, type Harness, type HarnessOptions } from './harness';
import { npmBinariesForced, npmChromium, type ChromiumBuild } from './npm-binaries';

// The bundle under test is the one the sources make: rebuilt when a source is newer than it, while the
// test file is collected (a build takes longer than a hook may).
await ensureConsoleBuilt();

/** Debian's Chromium; a test tool's own browser download cannot work here. */
export const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** Debian's Chromium where it is installed, else the Chromium an npm package ships (see npm-binaries.ts). */
export function chromiumBuild(): ChromiumBuild {
  if (existsSync(CHROMIUM) && !npmBinariesForced()) return { executablePath: CHROMIUM };
  const build = npmChromium();
  if (!build) throw new Error(`Chromium is missing: neither ${CHROMIUM} (apt-get install -y chromium) nor the @sparticuz/chromium devDependency (npm ci) is installed`);
  return build;
}

/** Headless Chromium for a browser test, with the flags this machine's closed network needs. */
export function launchChromium(): Promise<Browser> {
  const build = chromiumBuild();
  return chromium.launch({ executablePath: build.executablePath, args: CHROMIUM_ARGS, ...(build.env ? { env: { ...process.env, ...build.env } } : {}) });
}
export const SCREENSHOTS = join(import.meta.dirname, '..', 'screenshots');
export const DESKTOP = { width: 1200, height: 800 };
export const PHONE = { width: 390, height: 844 };

/** How a test page looks: its viewport and colour scheme. */
type PageOptions = { viewport?: { width: number; height: number }; colorScheme?: 'light' | 'dark' };

/** A Chromium for the console's tests; each signed-in page records its uncaught errors in `pageErrors`. */
export class ConsoleBrowser {
  readonly pageErrors: string[] = [];
  private readonly contexts: BrowserContext[] = [];
  private constructor(
    private readonly browser: Browser,
    private readonly h: Harness,
  ) {}

  /** A console suite's world: the harness (fake model, stores, Zero) and Chromium pointed at it. */
  static async open(options: HarnessOptions = {}): Promise<{ h: Harness; browser: ConsoleBrowser }> {
    const h = await startHarness(options);
    return { h, browser: await ConsoleBrowser.launch(h) };
  }

  /** After each test: the fake model's script is cleared, and no page threw an uncaught error. */
  settle(): void {
    this.h.fake.reset();
    expect(this.pageErrors).toEqual([]);
  }

  /** Closes Chromium, then the harness it was launched on. */
  async closeAll(): Promise<void> {
    await this.close();
    await this.h.close();
  }

  static async launch(h: Harness): Promise<ConsoleBrowser> {
    await mkdir(SCREENSHOTS, { recursive: true });
    return new ConsoleBrowser(await launchChromium(), h);
  }

  /** A fresh browser profile, not signed in. */
  newPage(options: PageOptions = {}): Promise<Page> {
    return this.open('anonymous', options);
  }

  /** A page in a fresh profile whose uncaught errors are recorded under `who`; `clipboard` grants the copy buttons their permission. */
  private async open(who: string, options: PageOptions, clipboard = false): Promise<Page> {
    const context = await this.browser.newContext({ viewport: options.viewport ?? DESKTOP, colorScheme: options.colorScheme ?? 'light' });
    if (clipboard) await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: this.h.url });
    this.contexts.push(context);
    const page = await context.newPage();
    page.setDefaultTimeout(20_000);
    page.on('pageerror', (error) => this.pageErrors.push(`[${who}] ${error.stack ?? error.message}`));
    return page;
  }

  /** A fresh browser profile signed in as this user (a key made through the API), at the console's start page. */
  async signIn(userId: string, name: string, options: PageOptions = {}): Promise<Page> {
    const page = await this.open(userId, options, true);
    const key = (await this.h.userHeaders(userId, name)).authorization!.replace(/^Bearer /, '');
    await page.goto(`${this.h.url}/`);
    await page.getByTestId('api-key').fill(key);
    await page.getByTestId('sign-in').click();
    await page.getByTestId('new-session').waitFor({ state: 'attached' });
    return page;
  }

  async close(): Promise<void> {
    for (const context of this.contexts) await context.close().catch(() => undefined);
    await this.browser.close();
  }
}

export const shot = (page: Page, name: string) => page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });

/** The session the page shows, from its URL (`#/s/<id>`). */
export async function shownSession(page: Page): Promise<string> {
  await page.waitForURL(/#\/s\/[0-9a-f-]{36}$/);
  return new URL(page.url()).hash.slice('#/s/'.length);
}

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

/** axe-core's WCAG 2.1 A/AA checks on what the page shows now: the serious and critical findings, one line each. */
export async function seriousViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ path: AXE });
  const result = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document, options: unknown): Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> } }).axe;
    return axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
  });
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

