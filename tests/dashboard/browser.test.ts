// The dashboard in a real browser (Debian's Chromium through playwright-core;
// scripts/install-browser.sh installs it): real proxied traffic shows up in the
// cards and the log, the detail drawer opens and closes, routing is switched
// off and on through the page's confirmed buttons, and nothing is loaded from
// anywhere but the Relay itself. Screenshots go to test-results/.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import path from "node:path";
import { type BrowserContext, type Page } from "playwright-core";
import { RESULTS, chromiumAvailable, launchChromium, watchedPage } from "../helpers/browser.ts";
import { sendTraffic, startDashboardWorld, type DashboardWorld } from "./world.ts";

const hasChromium = chromiumAvailable("the dashboard browser tests");

const VIEWPORTS = [
  { name: "desktop", width: 1280, height: 900 },
  { name: "phone", width: 390, height: 844 },
];

describe.skipIf(!hasChromium)("dashboard in Chromium", () => {
  let w: DashboardWorld;
  let context: BrowserContext;
  let browser: Awaited<ReturnType<typeof launchChromium>> | undefined;

  beforeAll(async () => {
    w = await startDashboardWorld();
    expect(await sendTraffic(w)).toEqual([200, 200, 200, 400, 200]);
    browser = await launchChromium();
    context = browser.context;
  }, 30_000);

  afterAll(async () => {
    await browser?.close();
    await w?.stop();
  });

  const routingEnabled = async () => ((await (await fetch(`${w.url}/control/status`, { headers: w.relay.admin })).json()) as { routingEnabled: boolean }).routingEnabled;

  test("signing in: the link's token becomes this listener's HttpOnly session cookie and leaves the address bar", async () => {
    await context.clearCookies();
    const { page, problems } = await watchedPage(context, 1280, 900);
    try {
      // Not signed in: the data endpoints refuse, and the page goes to the sign-in page.
      await page.goto(`${w.url}/dashboard`);
      await page.waitForURL(`${w.url}/dashboard/login`);
      // The link `relay dashboard` prints.
      await page.goto(`${w.url}/dashboard/login#${w.relay.adminToken}`);
      await page.waitForURL(`${w.url}/dashboard`);
      await page.locator('[data-card="requests"] [data-value]', { hasText: /^\d+$/ }).waitFor();
      const port = new URL(w.url).port;
      const cookies = await context.cookies(w.url);
      expect(cookies.map((c) => ({ name: c.name, httpOnly: c.httpOnly, sameSite: c.sameSite, path: c.path }))).toEqual([
        { name: `relay_admin_${port}`, httpOnly: true, sameSite: "Strict", path: "/" },
      ]);
      // The cookie holds a value derived from the token, never the token; the page's history holds no token either.
      expect(cookies[0]!.value).not.toContain(w.relay.adminToken);
      expect(await page.evaluate("document.cookie")).toBe("");
      await page.goBack();
      expect(page.url()).not.toContain(w.relay.adminToken);
      expect(problems.filter((p) => !p.includes("401"))).toEqual([]);
    } finally {
      await page.close();
    }
  }, 30_000);

  async function confirmRoutingToggle(page: Page, label: string, pill: string) {
    await page.getByRole("button", { name: label }).click();
    const dialog = page.locator("#confirm-dialog");
    await dialog.waitFor({ state: "visible" });
    await dialog.getByRole("button", { name: label }).click();
    await page.locator("#routing-pill", { hasText: pill }).waitFor();
  }

  for (const vp of VIEWPORTS) {
    test(`shows the traffic, the detail drawer and the routing switch (${vp.name}, ${vp.width}px)`, async () => {
      const { page, requested, problems } = await watchedPage(context, vp.width, vp.height);
      try {
        await page.goto(`${w.url}/dashboard/login#${w.relay.adminToken}`);
        await page.waitForURL(`${w.url}/dashboard`);

        // Cards: 5 requests, 1 failure, some spend (default range: 24 h).
        const card = (key: string) => page.locator(`[data-card="${key}"] [data-value]`);
        await page.locator('[data-card="requests"] [data-value]', { hasText: /^5$/ }).waitFor();
        expect(await card("success").textContent()).toBe("80%");
        expect(await card("spend").textContent()).toMatch(/^\$0\.\d+$/);
        expect(await card("p95").textContent()).toMatch(/ms|s$/);
        expect(await page.locator('[data-card="savings"] [data-sub]').textContent()).toContain("claude-opus-4-5");

        // Log: newest first, the stream, the failure and both providers.
        const rows = page.locator("#runs tr[data-run]");
        await rows.nth(4).waitFor();
        expect(await rows.count()).toBe(5);
        expect(await rows.first().textContent()).toContain("stream");
        const log = await page.locator("#runs").textContent();
        for (const text of ["claude-haiku-4-5", "gpt-4o-mini", "asked svc:cascade", "400"]) expect(log).toContain(text);
        expect(await page.locator("#page-info").textContent()).toBe("1–5 of 5");

        // Filter by status, then clear.
        await page.fill("#filter-status", "400");
        await page.getByRole("button", { name: "Filter" }).click();
        await page.locator("#page-info", { hasText: "1–1 of 1" }).waitFor();
        await page.getByRole("button", { name: "Clear" }).click();
        await page.locator("#page-info", { hasText: "1–5 of 5" }).waitFor();

        // Detail drawer of the routed request: strategy, attempts, content notice; Escape closes it.
        await page.locator("#runs tr", { hasText: "asked svc:cascade" }).locator("button.row-open").click();
        const drawer = page.locator("#drawer");
        await drawer.locator("dd", { hasText: "cascade" }).first().waitFor();
        const details = await drawer.textContent();
        expect(details).toContain("Strategy");
        expect(details).toContain("Attempts");
        expect(details).toContain("claude-haiku-4-5 · anthropic");
        expect(details).toContain("Content logging is off");
        await page.screenshot({ path: path.join(RESULTS, `dashboard-drawer-${vp.name}.png`) });
        await page.keyboard.press("Escape");
        await drawer.waitFor({ state: "hidden" });

        // Routing off and on through the page's buttons, each confirmed.
        await confirmRoutingToggle(page, "Disable routing", "Routing off");
        expect(await routingEnabled()).toBe(false);
        await confirmRoutingToggle(page, "Enable routing", "Routing on");
        expect(await routingEnabled()).toBe(true);

        await page.locator("#chart-requests canvas").waitFor();
        await page.evaluate("window.scrollTo(0, 0)");
        await page.screenshot({ path: path.join(RESULTS, `dashboard-${vp.name}.png`), fullPage: true });

        await page.goto(`${w.url}/dashboard/settings`);
        // The redacted effective configuration, with where each value came from.
        const rpmRow = page.locator("#config-rows tr", { hasText: "limits.rpm.gpt-4o-mini" });
        await rpmRow.waitFor();
        expect(await rpmRow.locator("td").allTextContents()).toEqual(["limits.rpm.gpt-4o-mini", "60", "file"]);
        expect(await page.locator("#config-rows tr", { hasText: "server.host" }).locator("td").allTextContents()).toEqual(["server.host", '"127.0.0.1"', "default"]);
        await page.screenshot({ path: path.join(RESULTS, `dashboard-settings-${vp.name}.png`), fullPage: true });

        // Offline: the page asked nothing of any other origin, and nothing failed (CSP included).
        expect(requested.length).toBeGreaterThan(5);
        expect(requested.filter((u) => new URL(u).origin !== w.url)).toEqual([]);
        expect(problems).toEqual([]);
      } finally {
        await page.close();
      }
    }, 30_000);
  }
});
