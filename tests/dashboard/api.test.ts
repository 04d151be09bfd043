// The dashboard's HTTP contract: pages and embedded assets, the guarded JSON
// endpoints over real proxied traffic, ETags, and the security headers.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sendTraffic, startDashboardWorld, type DashboardWorld } from "./world.ts";

let w: DashboardWorld;
let statuses: number[];

beforeAll(async () => {
  w = await startDashboardWorld();
  statuses = await sendTraffic(w);
});
afterAll(() => w.stop());

// The admin token goes with every request: the data endpoints need it on loopback too (issue 34).
const get = (path: string, headers: Record<string, string> = {}) => fetch(`${w.url}${path}`, { headers: { ...w.relay.admin, ...headers } });
const getJson = async (path: string): Promise<any> => {
  const res = await get(path);
  expect(res.status).toBe(200);
  return res.json();
};

function expectSecurityHeaders(res: Response) {
  const csp = res.headers.get("content-security-policy") ?? "";
  expect(csp).toContain("script-src 'self'");
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).not.toContain("unsafe-inline");
  expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  expect(res.headers.get("referrer-policy")).toBe("no-referrer");
}

describe("pages and assets", () => {
  test("/ and /dashboard serve the overview page with external scripts only", async () => {
    for (const path of ["/", "/dashboard"]) {
      const res = await get(path);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toContain("text/html");
      expectSecurityHeaders(res);
      const html = await res.text();
      expect(html.startsWith("<!doctype html>")).toBe(true);
      expect(html).toContain('data-page="overview"');
      expect(html).toContain('<script src="/dashboard/assets/app.js" defer></script>');
      // No inline script: every <script> has a src.
      expect(html.match(/<script(?![^>]*\ssrc=)[^>]*>/g)).toBeNull();
      expect(html).not.toMatch(/https?:\/\//);
    }
  });

  test("/dashboard/settings serves the configuration page", async () => {
    const res = await get("/dashboard/settings");
    expectSecurityHeaders(res);
    expect(await res.text()).toContain('id="config-rows"');
  });

  test("assets are embedded, typed, and revalidated with ETags", async () => {
    const js = await get("/dashboard/assets/uplot.js");
    expect(js.headers.get("content-type")).toContain("javascript");
    expect(await js.text()).toContain("uPlot");
    const css = await get("/dashboard/assets/app.css");
    expect(css.headers.get("content-type")).toContain("text/css");
    const etag = css.headers.get("etag")!;
    const again = await get("/dashboard/assets/app.css", { "if-none-match": etag });
    expect(again.status).toBe(304);
    expectSecurityHeaders(again);
    const missing = await get("/dashboard/assets/nope.js");
    expect(missing.status).toBe(404);
    expectSecurityHeaders(missing);
  });
});

describe("JSON endpoints over real traffic", () => {
  test("the traffic was answered as scripted", () => {
    expect(statuses).toEqual([200, 200, 200, 400, 200]);
  });

  test("summary counts the requests, spend, savings and latency of the range", async () => {
    const s = await getJson("/dashboard/api/summary?range=hour");
    expect(s.requests).toBe(5);
    expect(s.errors).toBe(1);
    expect(s.successRate).toBeCloseTo(4 / 5);
    expect(s.costUsd).toBeGreaterThan(0);
    expect(s.savings.baselineModel).toBe("claude-opus-4-5");
    expect(s.savings.savedUsd).toBeGreaterThan(0);
    expect(s.latencyMs.p50).toBeGreaterThan(0);
    expect(s.latencyMs.p95).toBeGreaterThanOrEqual(s.latencyMs.p50);
    expect(s.models.map((m: any) => m.model).sort()).toEqual(["claude-haiku-4-5", "gpt-4o-mini"]);
  });

  test("series buckets the range and sums to the same requests", async () => {
    const s = await getJson("/dashboard/api/series?range=hour");
    expect(s.bucketMs).toBe(60_000);
    expect(s.points.length).toBeGreaterThanOrEqual(60);
    expect(s.points.reduce((n: number, p: any) => n + p.requests, 0)).toBe(5);
    expect(s.points.reduce((n: number, p: any) => n + p.errors, 0)).toBe(1);
    const res = await get("/dashboard/api/series?range=year");
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error.details.parameter).toBe("range");
  });

  test("runs page newest first, filter and paginate", async () => {
    const all = await getJson("/dashboard/api/runs?limit=2");
    expect(all.total).toBe(5);
    expect(all.runs).toHaveLength(2);
    expect(all.runs[0].ts).toBeGreaterThanOrEqual(all.runs[1].ts);
    // The stream was sent last; runs that started in the same millisecond may come in either order.
    const newest = all.runs.filter((r: { ts: number }) => r.ts === all.runs[0].ts);
    expect(newest.some((r: { stream: boolean }) => r.stream)).toBe(true);
    const next = await getJson("/dashboard/api/runs?limit=2&offset=2");
    expect(next.runs.map((r: any) => r.id)).not.toContain(all.runs[0].id);
    expect((await getJson("/dashboard/api/runs?provider=anthropic")).total).toBe(2);
    expect((await getJson("/dashboard/api/runs?model=gpt-4o-mini&status=400")).total).toBe(1);
    expect((await getJson("/dashboard/api/runs?session=sess-alpha")).total).toBe(2);
  });

  test("run detail carries the routing decision and its events; unknown ids are 404", async () => {
    const { runs } = await getJson("/dashboard/api/runs?session=sess-alpha");
    const cascade = await getJson(`/dashboard/api/runs/${runs.find((r: any) => r.requestedModel === "svc:cascade").id}`);
    expect(cascade).toMatchObject({ strategy: "cascade", routedModel: "claude-haiku-4-5", attempts: 1, metadata: { team: "dash" } });
    expect(cascade.reasons.length).toBeGreaterThan(0);
    const [failed] = (await getJson("/dashboard/api/runs?status=400")).runs;
    const detail = await getJson(`/dashboard/api/runs/${failed.id}`);
    expect(detail.events).toEqual([{ type: "error", model: "gpt-4o-mini", provider: "openai", status: 400, reason: "bad request upstream" }]);
    const missing = await get("/dashboard/api/runs/run_missing");
    expect(missing.status).toBe(404);
    expectSecurityHeaders(missing);
  });

  test("live shows routing, provider health, budgets and rate headroom", async () => {
    const live = await getJson("/dashboard/api/live");
    expect(live.routing.routingEnabled).toBe(true);
    expect(live.providers.map((p: any) => p.provider)).toContain("openai");
    expect(live.budget.hourly).toHaveProperty("spentUsd");
    expect(live.budget.daily).toHaveProperty("resetsInSec");
    // gpt-4o-mini has limits.rpm 60 and took three requests this minute.
    expect(live.rate).toEqual([{ model: "gpt-4o-mini", provider: "openai", limit: 60, remaining: 57, resetSec: expect.any(Number) }]);
  });

  test("an unchanged answer is a 304 with the same ETag", async () => {
    const first = await get("/dashboard/api/summary?range=day");
    const etag = first.headers.get("etag");
    expect(etag).toBeTruthy();
    expectSecurityHeaders(first);
    const second = await get("/dashboard/api/summary?range=day", { "if-none-match": etag! });
    expect(second.status).toBe(304);
    expect(await second.text()).toBe("");
  });
});

describe("admin guard", () => {
  const token = "dashboard-token-0123456789";

  test("on loopback with a token: cross-origin browser requests are refused, with the security headers", async () => {
    const tw = await startDashboardWorld({ config: { adminToken: token } });
    try {
      const res = await fetch(`${tw.url}/dashboard/api/summary`, { headers: { origin: "https://evil.example" } });
      expect(res.status).toBe(403);
      expectSecurityHeaders(res);
      expect((await fetch(`${tw.url}/dashboard/api/live`, { headers: { authorization: "Bearer wrong-token-000000000" } })).status).toBe(401);
    } finally {
      await tw.stop();
    }
  });

  test("on loopback without a configured token, data needs the install's own token; the page shell does not", async () => {
    const refused = await fetch(`${w.url}/dashboard/api/live`);
    expect(refused.status).toBe(401);
    expectSecurityHeaders(refused);
    expect((await fetch(`${w.url}/dashboard/api/live`, { headers: { authorization: "Bearer not-the-install-token" } })).status).toBe(401);
    expect((await get("/dashboard/api/live")).status).toBe(200);
    expect((await fetch(`${w.url}/dashboard`)).status).toBe(200);
  });

  test("off loopback, data needs the bearer token but the page shell does not", async () => {
    const tw = await startDashboardWorld({ config: { adminToken: token, server: { host: "0.0.0.0" } } });
    try {
      const refused = await fetch(`${tw.url}/dashboard/api/live`);
      expect(refused.status).toBe(401);
      expectSecurityHeaders(refused);
      const ok = await fetch(`${tw.url}/dashboard/api/live`, { headers: { authorization: `Bearer ${token}` } });
      expect(ok.status).toBe(200);
      expect((await fetch(`${tw.url}/dashboard`)).status).toBe(200);
    } finally {
      await tw.stop();
    }
  });
});
