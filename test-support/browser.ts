/**
 * Real headless Chromium for tests (Debian's `chromium`, driven by playwright-core). A suite that needs it asks
 * `needBrowser()`: when the browser is absent the suite is skipped with a visible message, except under CI=true where
 * that is a failure (as `needService` does for PostgreSQL and RabbitMQ). Screenshots go to SCREENSHOT_DIR
 * (git-ignored; CI keeps it as an artifact).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM_PATH = process.env.MCE_TEST_CHROMIUM ?? '/usr/bin/chromium';
export const SCREENSHOT_DIR = fileURLToPath(new URL('../.screenshots/', import.meta.url));

/** true when Chromium is installed; false (after a visible warning) when not; throws under CI=true. */
export function needBrowser(): boolean {
  if (existsSync(CHROMIUM_PATH)) return true;
  const message = `chromium is not installed at ${CHROMIUM_PATH} (apt-get install chromium): its browser tests are skipped`;
  if (process.env.CI === 'true') throw new Error(`${message} (not allowed under CI=true)`);
  console.warn(`\n⚠ SKIPPED: ${message}\n`);
  return false;
}

/**
 * A fresh headless Chromium in its own profile directory (removed on close). Requests to anything but the page's own
 * file or `allowedOrigin` are aborted and listed in `blocked`: a report must open without network.
 */
export async function launchBrowser(allowedOrigin?: string): Promise<{ context: BrowserContext; blocked: string[]; close: () => Promise<void> }> {
  const profile = mkdtempSync(join(tmpdir(), 'mce-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync',
    ],
  });
  const blocked: string[] = [];
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith('file:') || (allowedOrigin !== undefined && url.startsWith(allowedOrigin))) return route.continue();
    blocked.push(url);
    return route.abort();
  });
  return {
    context,
    blocked,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export function screenshotPath(name: string): string {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  return join(SCREENSHOT_DIR, name);
}

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** The WCAG 2 A and AA rules axe-core finds broken on the page (contrast, labels, roles, …), one line each. */
export async function accessibilityViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: AXE }); // inline: the pages' policy allows no script from elsewhere
  const violations = (await page.evaluate("axe.run(document, { runOnly: ['wcag2a', 'wcag2aa'] }).then((r) => r.violations)")) as Array<{
    id: string;
    help: string;
    nodes: Array<{ target: string[] }>;
  }>;
  return violations.map((v) => `${v.id}: ${v.help} (${v.nodes.length}×, e.g. ${v.nodes[0]?.target.join(' ')})`);
}
