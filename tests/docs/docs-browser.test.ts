// /docs in a real browser (Debian's Chromium through playwright-core;
// scripts/install-browser.sh installs it): the embedded Swagger UI renders the
// document, lists every proxy route, and asks nothing of any origin but the
// Relay's, with its CSP in force. Screenshot: test-results/docs.png.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import path from "node:path";
import { type BrowserContext } from "playwright-core";
import { RESULTS, chromiumAvailable, launchChromium, watchedPage } from "../helpers/browser.ts";
import { startDocsWorld, type DocsWorld } from "./world.ts";

const hasChromium = chromiumAvailable("the docs browser test");

const PROXY_ROUTES = [
  ["POST", "/v1/messages"],
  ["POST", "/v1/messages/count_tokens"],
  ["POST", "/v1/chat/completions"],
  ["GET", "/v1/models"],
  ["GET", "/health"],
  ["GET", "/healthz"],
  ["GET", "/status"],
];

describe.skipIf(!hasChromium)("/docs in Chromium", () => {
  let w: DocsWorld;
  let context: BrowserContext;
  let browser: Awaited<ReturnType<typeof launchChromium>> | undefined;

  beforeAll(async () => {
    w = await startDocsWorld();
    browser = await launchChromium();
    context = browser.context;
  }, 30_000);

  afterAll(async () => {
    await browser?.close();
    await w?.stop();
  });

  test("renders the operation list offline, every proxy route included", async () => {
    const { page, requested, problems } = await watchedPage(context, 1280, 900);
    try {
      const res = await page.goto(`${w.url}/docs`);
      expect(res?.headers()["content-security-policy"]).toContain("script-src 'self'");

      const operations = page.locator(".opblock .opblock-summary");
      await page.locator('.opblock-summary-path[data-path="/v1/chat/completions"]').waitFor();
      const listed = await operations.evaluateAll((els) =>
        els.map((el) => `${el.querySelector(".opblock-summary-method")?.textContent} ${el.querySelector(".opblock-summary-path")?.getAttribute("data-path")}`),
      );
      for (const [method, route] of PROXY_ROUTES) expect(listed).toContain(`${method} ${route}`);
      // Every documented operation is on the page.
      const doc = (await (await fetch(`${w.url}/openapi.json`)).json()) as { paths: Record<string, object> };
      const documented = Object.values(doc.paths).reduce((n, ops) => n + Object.keys(ops).length, 0);
      expect(listed.length).toBe(documented);
      expect(await page.locator(".info .title").textContent()).toContain("Relay");

      // Opening an operation shows its documented schema and x-svc-* headers.
      await page.locator('.opblock-summary-path[data-path="/v1/chat/completions"]').click();
      const opened = page.locator(".opblock.is-open", { hasText: "/v1/chat/completions" });
      await opened.locator(".response-col_status", { hasText: "200" }).first().waitFor();
      expect(await opened.textContent()).toContain("x-svc-routed-model");

      await page.evaluate("window.scrollTo(0, 0)");
      await page.screenshot({ path: path.join(RESULTS, "docs.png") });

      // Offline: nothing asked of any other origin, and nothing failed (CSP included).
      expect(requested).toEqual(expect.arrayContaining([`${w.url}/docs/assets/swagger-ui.js`, `${w.url}/openapi.json`]));
      expect(requested.filter((u) => !u.startsWith("data:") && new URL(u).origin !== w.url)).toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  }, 30_000);
});
