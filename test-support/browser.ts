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
import { chromium, type Browser } from 'playwright-core';

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

/** A fresh headless Chromium with its own profile directory, removed on close; no network beyond what a page asks. */
export async function launchBrowser(): Promise<{ browser: Browser; close: () => Promise<void> }> {
  const profile = mkdtempSync(join(tmpdir(), 'mce-chromium-'));
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', `--user-data-dir=${profile}`,
    ],
  });
  return {
    browser,
    close: async () => {
      await browser.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export function screenshotPath(name: string): string {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  return join(SCREENSHOT_DIR, name);
}
