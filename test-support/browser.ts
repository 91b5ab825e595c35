/**
 * Real headless Chromium for tests (Debian's `chromium`, driven by playwright-core). A suite that needs it asks
 * `needBrowser()`: when the browser is absent the suite is skipped with a visible message, except under CI=true where
 * that is a failure (as `needService` does for PostgreSQL and RabbitMQ). Screenshots go to SCREENSHOT_DIR
 * (git-ignored; CI keeps it as an artifact).
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext } from 'playwright-core';

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
