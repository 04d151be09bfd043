// The cloud listener's OpenAPI document (issue 37 item 8), read from a running `relay cloud` app on
// SQLite and on Postgres: it documents exactly the routes the listener's Elysia surfaces register (a
// new route without docs fails here), every error it documents is the hosted error object, keyed
// routes document 401/429/500, and every status a route really answers to a battery of bad requests
// (no key, a read-only key, a free plan, broken JSON, bad query values) is one it documents, with that
// body. /docs is the embedded Swagger UI: HTML that asks nothing of another origin (Chromium).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { AnyElysia } from "elysia";
import { createKey, createTeam } from "../../src/core/tenancy/api-keys.ts";
import { listen, type Listener } from "../../src/runtime/serve.ts";
import { docsSurface } from "../../src/surfaces/docs/index.ts";
import { openApiPath, type OpenApiDocument } from "../../src/surfaces/docs/openapi.ts";
import { buildFetch, surfacesFor } from "../../src/surfaces/index.ts";
import { chromiumAvailable, launchChromium, watchedPage } from "../helpers/browser.ts";
import { startRelay, type TestRelay } from "../helpers/relay.ts";
import { postgresDatabase } from "./pg-database.ts";

type Json = Record<string, any>;
const ERROR_REF = "#/components/schemas/Error";
const hasChromium = chromiumAvailable("the cloud /docs browser check");

describe.each(["sqlite", "postgres"] as const)("the cloud listener's OpenAPI document on %s", (driver) => {
  let db: Awaited<ReturnType<typeof postgresDatabase>> | undefined;
  let r: TestRelay;
  let cloud: Listener;
  let doc: OpenApiDocument;
  /** The surfaces the cloud listener mounts, built as buildFetch builds them, the docs surface last. */
  let surfaces: AnyElysia[];

  beforeAll(async () => {
    if (driver === "postgres") db = await postgresDatabase("relay_cloud_openapi");
    r = await startRelay({ config: db ? { store: { driver: "postgres", postgresUrl: db.url } } : {} });
    cloud = listen({ hostname: "127.0.0.1", port: 0, fetch: buildFetch(r.relay, "cloud"), maxRequestBodySize: 1 << 22, idleTimeoutSec: 30 });
    const documented = surfacesFor(r.relay, "cloud");
    surfaces = [...documented, docsSurface(documented, r.relay.log)];
    const res = await fetch(`${cloud.url}/openapi.json`);
    expect(res.status).toBe(200);
    doc = (await res.json()) as OpenApiDocument;
  });
  afterAll(async () => {
    await cloud?.stop(100);
    await r?.stop();
    await db?.drop();
  });

  const operations = () =>
    Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ path, method: method.toUpperCase(), op: op as Json, key: `${method.toUpperCase()} ${path}` })));
  const keyed = (op: Json) => ((op.parameters ?? []) as Json[]).some((p) => p.in === "header" && p.name === "x-api-key");
  const schemaRef = (response: Json) => response?.content?.["application/json"]?.schema?.$ref;

  test("documents exactly the routes the listener's surfaces register", () => {
    const registered = surfaces.flatMap((s) => s.routes).map((route) => `${route.method} ${openApiPath(route.path)}`).sort();
    expect(registered.length).toBeGreaterThan(10);
    expect(operations().map((o) => o.key).sort()).toEqual(registered);
    for (const key of ["POST /api/relay", "POST /api/register", "GET /api/discover", "GET /api/health", "GET /api/keys", "GET /openapi.json", "GET /docs"]) expect(registered).toContain(key);
  });

  test("every operation has a summary, defined tags and a success response; every error is the hosted error object", () => {
    const tags = new Set(doc.tags.map((t) => t.name));
    for (const { key, op } of operations()) {
      expect(op.summary, key).toBeString();
      for (const t of op.tags as string[]) expect(tags.has(t), `${key}: tag ${t} is not defined`).toBe(true);
      const statuses = Object.keys(op.responses as Json);
      expect(statuses.some((s) => /^[23]/.test(s)), key).toBe(true);
      for (const status of statuses.filter((s) => /^[45]/.test(s))) {
        // /api/health's 503 is the health body itself (spec §2.5), not a refusal.
        if (key !== "GET /api/health" || status !== "503") expect(schemaRef(op.responses[status]), `${key} ${status}`).toBe(ERROR_REF);
      }
    }
    expect(doc.components.schemas.Error).toMatchObject({ required: expect.arrayContaining(["error", "request_id"]) });
  });

  test("routes behind an API key document 401, 429 and 500; every /api and /console/api route documents 500", () => {
    const apiRoutes = operations().filter((o) => /^\/(console\/)?api\//.test(o.path));
    expect(apiRoutes.filter((o) => keyed(o.op)).length).toBeGreaterThanOrEqual(8);
    for (const { key, op } of apiRoutes) {
      const statuses = Object.keys(op.responses as Json);
      if (keyed(op)) expect(statuses, key).toEqual(expect.arrayContaining(["401", "429", "500"]));
      // /api/health reports a failing dependency as 503 itself.
      if (key !== "GET /api/health") expect(statuses, key).toContain("500");
      if (op.requestBody || ((op.parameters ?? []) as Json[]).some((p) => p.in === "query")) expect(statuses, `${key} takes input`).toContain("400");
    }
  });

  test("every status a route answers to a bad request is documented, with the hosted error body", async () => {
    const pro = await createTeam(r.relay.store, "Docs pro", "pro");
    const free = await createTeam(r.relay.store, "Docs free", "free");
    const readOnly = await createKey(r.relay.store.apiKeys, pro.team.id, "read_only", "docs");
    const probes: { name: string; key?: string; body?: string; query?: string }[] = [
      { name: "no key" },
      { name: "read-only key", key: readOnly.secret, body: "{}" },
      { name: "free plan", key: free.secret, body: "{}" },
      { name: "broken JSON", key: pro.secret, body: "{", query: "limit=x&offset=-1&since=x&until=x&status=x&format=x&capability=" },
      { name: "empty object", key: pro.secret, body: "{}", query: "limit=0" },
    ];
    let answered = 0;
    for (const { key, path, method, op } of operations()) {
      // The console's endpoints answer every probe without a session (401), which they must document too.
      if (!/^\/(console\/)?api\//.test(path)) continue;
      const url = `${cloud.url}${path.replace(/\{\w+\}/g, "nonexistent_1")}`;
      for (const probe of probes) {
        const headers: Record<string, string> = probe.key ? { "x-api-key": probe.key } : {};
        const post = method !== "GET" && method !== "DELETE";
        if (post) headers["content-type"] = "application/json";
        const res = await fetch(method === "GET" && probe.query ? `${url}?${probe.query}` : url, { method, headers, body: post ? (probe.body ?? "{}") : undefined });
        const where = `${key} (${probe.name}) answered ${res.status}`;
        expect(Object.keys(op.responses as Json), where).toContain(String(res.status));
        if (schemaRef(op.responses[res.status]) === ERROR_REF) {
          expect(await res.json(), where).toEqual(expect.objectContaining({ error: expect.objectContaining({ code: expect.any(String), message: expect.any(String) }), request_id: expect.stringMatching(/^req_/) }));
        } else await res.body?.cancel();
        answered++;
      }
    }
    expect(answered).toBeGreaterThan(40);
  });

  test("/docs is the embedded page: HTML whose scripts and styles come from this listener", async () => {
    const res = await fetch(`${cloud.url}/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    expect(res.headers.get("content-security-policy")).toContain("script-src 'self'");
    const html = await res.text();
    const refs = [...html.matchAll(/\b(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) {
      expect(ref, "an external reference").not.toMatch(/^(https?:)?\/\//);
      expect((await fetch(new URL(ref, `${cloud.url}/docs`))).status, ref).toBe(200);
    }
  });

  // The page does not depend on the store: once is enough.
  if (driver === "sqlite") test.skipIf(!hasChromium)("/docs renders every documented route in Chromium with no request to another origin", async () => {
    const browser = await launchChromium();
    const { page, requested, problems } = await watchedPage(browser.context, 1280, 900);
    try {
      await page.goto(`${cloud.url}/docs`);
      await page.locator('.opblock-summary-path[data-path="/api/relay"]').waitFor();
      const listed = await page.locator(".opblock .opblock-summary").count();
      expect(listed).toBe(operations().length);
      expect(requested.filter((u) => !u.startsWith("data:") && new URL(u).origin !== cloud.url)).toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
      await browser.close();
    }
  }, 60_000);
});
