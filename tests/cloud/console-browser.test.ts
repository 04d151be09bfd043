// The team console in a real browser (Debian's Chromium through playwright-core; scripts/
// install-browser.sh installs it), at desktop and phone width: signing in with a key (which becomes
// an HttpOnly session cookie), creating a key in the page (its secret shown once), a call relayed
// over HTTP with that key appearing in the log, its detail, its CSV export (a real download), and
// revoking the key with a confirmation; a triggered workflow run on the Runs page with its steps. Nothing is loaded from anywhere but the listener, and the
// page logs no error. Screenshots go to test-results/.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import path from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { createTeam } from "../../src/core/tenancy/api-keys.ts";
import { listen, type Listener } from "../../src/runtime/serve.ts";
import { buildFetch } from "../../src/surfaces/index.ts";
import { RESULTS, chromiumAvailable, launchChromium, watchedPage } from "../helpers/browser.ts";
import { chatBody, eventually, startWorld, type World } from "../proxy/world.ts";

const hasChromium = chromiumAvailable("the console browser tests");

const VIEWPORTS = [
  { name: "desktop", width: 1280, height: 900 },
  { name: "phone", width: 390, height: 844 },
];

describe.skipIf(!hasChromium)("the team console in Chromium", () => {
  let w: World;
  let cloud: Listener;
  let browser: Awaited<ReturnType<typeof launchChromium>> | undefined;
  let context: BrowserContext;
  let teamKey: string;
  const { model: _, ...chatPayload } = chatBody("gpt-4o-mini");

  beforeAll(async () => {
    w = await startWorld();
    cloud = listen({ hostname: "127.0.0.1", port: 0, fetch: buildFetch(w.relay.relay, "cloud"), maxRequestBodySize: 1 << 22, idleTimeoutSec: 30 });
    teamKey = (await createTeam(w.relay.relay.store, "Browsers", "maker")).secret;
    browser = await launchChromium();
    context = browser.context;
  }, 30_000);

  afterAll(async () => {
    await browser?.close();
    await cloud?.stop(100);
    await w?.stop();
  });

  async function signIn(page: Page) {
    await page.goto(`${cloud.url}/console`);
    await page.waitForURL(`${cloud.url}/console/login`);
    await page.getByLabel("API key").fill(teamKey);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${cloud.url}/console`);
    await page.locator("body[data-ready]").waitFor();
  }

  /** Creates a key through the keys page; its secret as the page shows it, once. */
  async function createKeyInPage(page: Page, name: string): Promise<string> {
    await page.getByRole("link", { name: "API keys" }).click();
    await page.locator("body[data-ready]").waitFor();
    await page.getByLabel("Name").fill(name);
    await page.getByLabel("Type").selectOption("standard");
    await page.getByRole("button", { name: "Create key" }).click();
    await page.locator("#secret-box").waitFor({ state: "visible" });
    const secret = await page.getByLabel("New API key").inputValue();
    expect(secret).toMatch(/^rk_live_[A-Za-z0-9_-]{43}$/);
    await page.locator("#key-rows tr", { hasText: name }).waitFor();
    return secret;
  }

  async function relay(key: string, metadata: Record<string, unknown>) {
    const res = await fetch(`${cloud.url}/api/relay`, { method: "POST", headers: { "x-api-key": key, "content-type": "application/json" }, body: JSON.stringify({ to: "gpt-4o-mini", payload: chatPayload, metadata }) });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { relay_id: string };
    await w.relay.relay.writer.flush();
    return body.relay_id;
  }

  test("a free team's console shows its log, and its export buttons name the plans that have export (phone)", async () => {
    await context.clearCookies();
    const free = await createTeam(w.relay.relay.store, "Frugal", "free");
    const relayId = await relay(free.secret, {});
    const { page, requested, problems } = await watchedPage(context, 390, 844);
    try {
      await page.goto(`${cloud.url}/console/login`);
      await page.getByLabel("API key").fill(free.secret);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.waitForURL(`${cloud.url}/console`);
      await page.goto(`${cloud.url}/console/logs`);
      await page.locator("body[data-ready]").waitFor();
      await page.locator("#logs tr[data-log]").first().locator("button.row-open").click();
      await page.locator("#drawer code", { hasText: relayId }).waitFor();
      await page.keyboard.press("Escape");
      expect(await page.locator("#export-note").textContent()).toBe("Exporting the log (CSV, JSON) comes with the maker and pro plans; this team is on free.");
      for (const id of ["#export-csv", "#export-json"]) {
        expect(await page.locator(id).getAttribute("aria-disabled")).toBe("true");
        expect(await page.locator(id).getAttribute("href")).toBeNull();
      }
      await page.screenshot({ path: path.join(RESULTS, "console-log-free-phone.png"), fullPage: true });
      expect(requested.filter((u) => new URL(u).origin !== cloud.url)).toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  }, 30_000);

  test("a triggered workflow run appears on the Runs page and its steps open in the drawer (desktop)", async () => {
    await context.clearCookies();
    const team = await createTeam(w.relay.relay.store, "Flowing", "pro");
    await w.relay.relay.store.accounts.setCloudEnabled(team.team.id, true);
    const api = (path: string, body?: unknown) =>
      fetch(`${cloud.url}${path}`, { method: body === undefined ? "GET" : "POST", headers: { "x-api-key": team.secret, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
    expect((await api("/api/v1/workflows", { name: "greeter", steps: [{ name: "greet", model: "openai:gpt-4o-mini", userPrompt: "Greet {{input.who}}." }] })).status).toBe(201);
    const { run } = (await (await api("/api/v1/webhooks/trigger", { workflow: "greeter", input: { who: "Ada" } })).json()) as { run: { id: string } };
    await eventually(async () => (((await (await api(`/api/v1/webhooks/runs/${run.id}`)).json()) as any).run.status === "succeeded" ? true : undefined), "the run to succeed", 15_000);
    const { page, requested, problems } = await watchedPage(context, 1280, 900);
    try {
      await page.goto(`${cloud.url}/console/login`);
      await page.getByLabel("API key").fill(team.secret);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.waitForURL(`${cloud.url}/console`);
      await page.getByRole("link", { name: "Runs" }).click();
      await page.locator("body[data-ready]").waitFor();
      const row = page.locator(`#run-rows tr[data-run="${run.id}"]`);
      expect(await row.textContent()).toContain("greeter");
      expect(await row.locator(".badge").textContent()).toBe("succeeded");
      await row.locator("button.row-open").click();
      const step = page.locator('#drawer [data-step="greet"]');
      await step.waitFor();
      expect(await page.locator("#drawer code").textContent()).toBe(run.id);
      expect(await step.locator("[data-prompt]").textContent()).toBe("user: Greet Ada.");
      expect(await step.textContent()).toContain("openai:gpt-4o-mini");
      expect(await step.locator("[data-output]").textContent()).not.toBe("");
      await page.screenshot({ path: path.join(RESULTS, "console-runs-desktop.png"), fullPage: true });
      expect(requested.filter((u) => new URL(u).origin !== cloud.url)).toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  }, 30_000);

  for (const vp of VIEWPORTS) {
    test(`sign in, create a key, see its relayed call in the log, export it, revoke the key (${vp.name}, ${vp.width}px)`, async () => {
      await context.clearCookies();
      const { page, requested, problems } = await watchedPage(context, vp.width, vp.height);
      const shot = (name: string) => page.screenshot({ path: path.join(RESULTS, `console-${name}-${vp.name}.png`), fullPage: true });
      try {
        await signIn(page);
        // The key became a session cookie the page cannot read, holding a token, not the key.
        const cookies = await context.cookies(`${cloud.url}/console`);
        expect(cookies.map((c) => ({ name: c.name, httpOnly: c.httpOnly, sameSite: c.sameSite, path: c.path }))).toEqual([
          { name: `relay_console_${new URL(cloud.url).port}`, httpOnly: true, sameSite: "Strict", path: "/console" },
        ]);
        expect(cookies[0]!.value).not.toContain(teamKey);
        expect(await page.evaluate("document.cookie")).toBe("");
        expect(await page.locator("#team-name").textContent()).toBe("Browsers");

        // A key made in the page: its secret shown once, gone after a reload.
        const name = `ci-${vp.name}`;
        const secret = await createKeyInPage(page, name);
        await shot("keys");
        await page.reload();
        await page.locator("body[data-ready]").waitFor();
        expect(await page.locator("#secret-box").isHidden()).toBe(true);
        expect(await page.content()).not.toContain(secret);

        // A call relayed with the new key shows in the log, newest first, with its detail.
        const relayId = await relay(secret, { viewport: vp.name });
        await page.getByRole("link", { name: "Request log" }).click();
        await page.locator("body[data-ready]").waitFor();
        const first = page.locator("#logs tr[data-log]").first();
        await first.waitFor();
        expect(await first.textContent()).toContain("gpt-4o-mini");
        await page.getByLabel("Model").fill("gpt-4o-mini");
        await page.getByLabel("Status").fill("200");
        await page.getByRole("button", { name: "Filter" }).click();
        const total = vp.name === "desktop" ? 1 : 2;
        await page.locator("#page-info", { hasText: `1–${total} of ${total}` }).waitFor();
        await first.locator("button.row-open").click();
        const drawer = page.locator("#drawer");
        await drawer.locator("code", { hasText: relayId }).waitFor();
        const detail = await drawer.textContent();
        expect(detail).toContain("gpt-4o-mini · openai");
        expect(detail).toContain(`"viewport": "${vp.name}"`);
        expect(detail).toContain("No fallback");
        await shot("log-detail");
        await page.keyboard.press("Escape");
        await drawer.waitFor({ state: "hidden" });

        // Exported as CSV: a real download of the filtered log, the call in it.
        const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("link", { name: "Export CSV" }).click()]);
        expect(download.suggestedFilename()).toMatch(/^relay-logs-team_[0-9a-f]+-\d{4}-\d{2}-\d{2}\.csv$/);
        const csv = readFileSync((await download.path())!, "utf8").trimEnd().split("\r\n");
        expect(csv[0]).toStartWith("id,relay_id,timestamp,latency_ms,model,");
        expect(csv).toHaveLength(total + 1);
        expect(csv[1]).toContain(relayId);
        expect(csv[1]).toContain(",gpt-4o-mini,");
        await shot("log");

        // The usage page counts the team's calls, by model.
        await page.getByRole("link", { name: "Usage" }).click();
        await page.locator("body[data-ready]").waitFor();
        expect(await page.locator('[data-card="requests"] [data-value]').textContent()).toBe(String(total));
        expect(await page.locator("#models tr").first().locator("td").first().textContent()).toBe("gpt-4o-mini");
        await shot("usage");

        // The key revoked from the page, after a confirmation; the API refuses it at once.
        await page.getByRole("link", { name: "API keys" }).click();
        await page.locator("body[data-ready]").waitFor();
        await page.getByRole("button", { name: `Revoke ${name}` }).click();
        const dialog = page.locator("#confirm-dialog");
        await dialog.waitFor({ state: "visible" });
        await dialog.getByRole("button", { name: "Revoke" }).click();
        await page.locator("#key-rows tr", { hasText: name }).locator(".badge", { hasText: "revoked" }).waitFor();
        expect((await fetch(`${cloud.url}/api/keys`, { headers: { "x-api-key": secret } })).status).toBe(401);

        await page.getByRole("link", { name: "Agents" }).click();
        await page.locator("body[data-ready]").waitFor();
        await shot("agents");

        // Signing out ends the session: the console sends the browser back to the sign-in page.
        await page.getByRole("button", { name: "Sign out" }).click();
        await page.waitForURL(`${cloud.url}/console/login`);
        await page.goto(`${cloud.url}/console/keys`);
        await page.waitForURL(`${cloud.url}/console/login`);

        // Offline: nothing asked of any other origin, and nothing failed (CSP included).
        expect(requested.length).toBeGreaterThan(10);
        expect(requested.filter((u) => new URL(u).origin !== cloud.url)).toEqual([]);
        expect(problems).toEqual([]);
      } finally {
        await page.close();
      }
    }, 60_000);
  }
});
