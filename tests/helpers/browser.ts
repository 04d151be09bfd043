// Debian's Chromium driven by playwright-core (scripts/install-browser.sh
// installs it; no browser is downloaded). Without it the browser tests are
// skipped with the reason, except in CI, where they must run.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { chromium, type BrowserContext } from "playwright-core";

const CHROMIUM = "/usr/bin/chromium";

export const RESULTS = path.resolve(import.meta.dir, "../../test-results");

/** True when Chromium is installed; otherwise warns (or throws in CI) naming the suite. */
export function chromiumAvailable(suite: string): boolean {
  if (existsSync(CHROMIUM)) return true;
  const reason = `${CHROMIUM} not found (run scripts/install-browser.sh)`;
  if (process.env.CI === "true") throw new Error(`${reason}: CI requires the browser tests`);
  console.warn(`${reason}: skipping ${suite}`);
  return false;
}

/** A headless Chromium with a fresh profile and no background networking; close() removes the profile. */
export async function launchChromium(): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const profile = mkdtempSync(path.join(tmpdir(), "relay-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  mkdirSync(RESULTS, { recursive: true });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** A new page at the given size that records every URL it requests and every page or console error. */
export async function watchedPage(context: BrowserContext, width: number, height: number) {
  const page = await context.newPage();
  await page.setViewportSize({ width, height });
  const requested: string[] = [];
  const problems: string[] = [];
  page.on("request", (r) => requested.push(r.url()));
  page.on("pageerror", (e) => problems.push(e.message));
  page.on("console", (m) => {
    if (m.type() === "error") problems.push(m.text());
  });
  return { page, requested, problems };
}
