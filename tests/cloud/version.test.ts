// The version routes of `relay cloud` (spec §9; issue 39 item 7) over real HTTP, on SQLite and on
// Postgres (they touch no store, but the cloud listener they run in is built per store driver, and the
// run costs a second): GET /api/v1/version/api answers 1.0 and the build's version, with an ETag and a
// 304; GET /api/v1/version/sdk reports the SDK this build ships (sdk/package.json) and an SDK check compares with it;
// a build that ships SDK 2.4.3 (the same routes in the same app machinery, on a listener of their own)
// answers it and grades each client version: patch, minor and major steps, equal, newer, prereleases.
// Every bad body is a 400 naming its field, a non-JSON body a 415, an oversized one a 413; no key, ever.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import pkg from "../../package.json" with { type: "json" };
import sdkPkg from "../../sdk/package.json" with { type: "json" };
import { listen, type Listener } from "../../src/runtime/serve.ts";
import { createApp } from "../../src/surfaces/app.ts";
import { browserGuard } from "../../src/surfaces/browser-guard.ts";
import { PUBLIC_CACHE_CONTROL } from "../../src/surfaces/cloud/public-data.ts";
import { versionRoutes } from "../../src/surfaces/cloud/version.ts";
import { buildFetch } from "../../src/surfaces/index.ts";
import { startRelay, type TestRelay } from "../helpers/relay.ts";
import { postgresDatabase } from "./pg-database.ts";

type Json = Record<string, any>;
const SDK = { package: "@relay/sdk", version: "2.4.3" };

describe.each(["sqlite", "postgres"] as const)("version routes on %s", (driver) => {
  let db: Awaited<ReturnType<typeof postgresDatabase>> | undefined;
  let r: TestRelay;
  /** The cloud listener of this build. */
  let cloud: Listener;
  /** The version routes of a build that ships SDK 2.4.3. */
  let withSdk: Listener;

  beforeAll(async () => {
    if (driver === "postgres") db = await postgresDatabase("relay_version");
    r = await startRelay({ config: db ? { store: { driver: "postgres", postgresUrl: db.url } } : {} });
    cloud = listen({ hostname: "127.0.0.1", port: 0, fetch: buildFetch(r.relay, "cloud"), maxRequestBodySize: 1 << 20, idleTimeoutSec: 30 });
    const app = createApp([versionRoutes({ server: pkg.version, sdk: SDK })], {
      log: r.relay.log,
      guard: browserGuard(() => r.relay.config().server, true),
      listener: () => ({ hostname: "127.0.0.1", port: 0 }),
      installToken: () => "unused",
    });
    withSdk = listen({ hostname: "127.0.0.1", port: 0, fetch: app, maxRequestBodySize: 1 << 20, idleTimeoutSec: 30 });
  });
  afterAll(async () => {
    await withSdk?.stop(100);
    await cloud?.stop(100);
    await r?.stop();
    await db?.drop();
  });

  const post = (base: Listener, body: string, contentType: string | null = "application/json") =>
    fetch(`${base.url}/api/v1/version/check`, { method: "POST", headers: contentType ? { "content-type": contentType } : {}, body });
  const check = (base: Listener, value: unknown) => post(base, JSON.stringify(value));

  async function expectError(res: Response, status: number, code: string): Promise<Json> {
    expect(res.status).toBe(status);
    const body = (await res.json()) as Json;
    expect(body).toEqual({ error: expect.objectContaining({ code, message: expect.any(String) }), request_id: expect.stringMatching(/^req_/) });
    expect(res.headers.get("x-svc-request-id")).toBe(body.request_id);
    return body;
  }

  /** A cacheable GET: its body, after checking that its ETag gets a 304 and a stale one does not. */
  async function cacheable(base: Listener, path: string): Promise<Json> {
    const res = await fetch(`${base.url}${path}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(res.headers.get("cache-control")).toBe(PUBLIC_CACHE_CONTROL);
    const etag = res.headers.get("etag")!;
    expect(etag).toMatch(/^"[0-9a-z]+"$/);
    for (const held of [etag, `W/${etag}`, `"stale", ${etag}`]) {
      const again = await fetch(`${base.url}${path}`, { headers: { "if-none-match": held } });
      expect(again.status).toBe(304);
      expect(again.headers.get("etag")).toBe(etag);
      expect(await again.text()).toBe("");
    }
    const stale = await fetch(`${base.url}${path}`, { headers: { "if-none-match": '"stale"' } });
    expect(stale.status).toBe(200);
    expect(await stale.json()).toEqual(await res.clone().json());
    return (await res.json()) as Json;
  }

  test("GET /api/v1/version/api: the API version 1.0 and this build's version, cacheable, without a key", async () => {
    expect(await cacheable(cloud, "/api/v1/version/api")).toEqual({ api_version: "1.0", server_version: pkg.version });
    // The same version as the health result's (spec §9.1).
    expect(((await (await fetch(`${cloud.url}/api/health`)).json()) as Json).version).toBe(pkg.version);
  });

  test("this build ships the SDK of sdk/package.json: GET /api/v1/version/sdk reports it, an SDK check compares with it", async () => {
    expect(await cacheable(cloud, "/api/v1/version/sdk")).toEqual({ sdk_version: sdkPkg.version, package: sdkPkg.name });
    for (const body of [{ version: "0.0.1" }, { version: "0.0.1", component: "sdk" }]) {
      const res = await check(cloud, body);
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ component: "sdk", current: "0.0.1", latest: sdkPkg.version, update_available: true });
    }
    // A bad version is named.
    expect((await expectError(await check(cloud, { version: "one" }), 400, "invalid_request")).error.details.parameter).toBe("version");
  });

  test("component api: client API versions against 1.0 (compared as 1.0.0)", async () => {
    const cases: [string, Json][] = [
      ["0.9.0", { current: "0.9.0", update_available: true, status: "outdated", urgency: "major" }],
      ["1.0.0-rc.2", { current: "1.0.0-rc.2", update_available: true, status: "outdated", urgency: "patch" }],
      ["1.0.0", { current: "1.0.0", update_available: false, status: "current", urgency: "none" }],
      ["v1.0.0", { current: "1.0.0", update_available: false, status: "current", urgency: "none" }],
      ["1.1.0", { current: "1.1.0", update_available: false, status: "ahead", urgency: "none" }],
    ];
    for (const [version, expected] of cases) {
      const res = await check(cloud, { version, component: "api" });
      expect(res.status, version).toBe(200);
      expect(await res.json(), version).toEqual({ component: "api", latest: "1.0.0", ...expected });
    }
  });

  test("a build that ships an SDK reports it, cacheable", async () => {
    expect(await cacheable(withSdk, "/api/v1/version/sdk")).toEqual({ sdk_version: "2.4.3", package: "@relay/sdk" });
    expect(await cacheable(withSdk, "/api/v1/version/api")).toEqual({ api_version: "1.0", server_version: pkg.version });
  });

  test("SDK checks: each urgency, equal, newer and prerelease versions against 2.4.3", async () => {
    const outdated = (urgency: string) => ({ update_available: true, status: "outdated", urgency });
    const notOutdated = (status: string) => ({ update_available: false, status, urgency: "none" });
    const cases: [string, Json][] = [
      ["2.4.2", outdated("patch")],
      ["2.4.0", outdated("patch")],
      ["2.3.9", outdated("minor")],
      ["2.0.0", outdated("minor")],
      ["1.9.9", outdated("major")],
      ["0.1.0", outdated("major")],
      // A prerelease is older than its release: a candidate of the latest is a patch away ...
      ["2.4.3-rc.1", outdated("patch")],
      // ... a prerelease of an older line is as far as its line.
      ["2.0.0-beta.3", outdated("minor")],
      ["1.0.0-alpha", outdated("major")],
      ["2.4.3", notOutdated("current")],
      // Build metadata does not count in precedence, and is dropped from current.
      ["2.4.3+build.7", notOutdated("current")],
      ["2.4.4", notOutdated("ahead")],
      ["3.0.0", notOutdated("ahead")],
      ["2.5.0-rc.1", notOutdated("ahead")],
    ];
    for (const [version, expected] of cases) {
      for (const body of [{ version }, { version, component: "sdk" }]) {
        const res = await check(withSdk, body);
        expect(res.status, version).toBe(200);
        expect(await res.json(), version).toEqual({ component: "sdk", current: version.replace(/\+.*/, ""), latest: "2.4.3", ...expected });
      }
    }
  });

  test("fields other than version and component are ignored (a newer SDK may send more)", async () => {
    const res = await check(withSdk, { version: "2.4.3", component: "sdk", runtime: "node", runtime_version: "20.11.0" });
    expect(res.status).toBe(200);
    expect(((await res.json()) as Json).status).toBe("current");
  });

  test("an invalid version is a 400 naming version, with expected string", async () => {
    const bad: unknown[] = [undefined, null, 12, true, ["2.4.3"], { major: 2 }, "", " ", "2", "2.4", "2.4.3.1", "02.4.3", "2.4.3-", "latest", ">=2.4.3", "^2.4.3", "2.x", `2.4.${"9".repeat(300)}`];
    for (const base of [cloud, withSdk]) {
      for (const version of bad) {
        const body = await expectError(await check(base, version === undefined ? { component: "sdk" } : { version }), 400, "invalid_request");
        expect(body.error.details, JSON.stringify(version)).toMatchObject({ parameter: "version", expected: "string" });
        expect(body.error.message).toContain("version");
      }
    }
  });

  test("an unknown component is a 400 naming component", async () => {
    for (const component of ["cli", "SDK", "", 1, null]) {
      const body = await expectError(await check(withSdk, { version: "2.4.3", component }), 400, "invalid_request");
      expect(body.error.details, JSON.stringify(component)).toMatchObject({ parameter: "component", expected: "string" });
    }
  });

  test("a body that is not a JSON object is a 400; over 4 KB a 413; not declared JSON a 415", async () => {
    for (const text of ["{", "[]", '"2.4.3"', "2.4", "null"]) await expectError(await post(withSdk, text), 400, "invalid_request");
    await expectError(await post(withSdk, JSON.stringify({ version: "2.4.3", padding: "x".repeat(5000) })), 413, "request_too_large");
    for (const type of [null, "text/plain", "application/x-www-form-urlencoded"]) {
      await expectError(await post(cloud, JSON.stringify({ version: "1.0.0", component: "api" }), type), 415, "unsupported_media_type");
    }
    // A +json type is JSON.
    expect((await post(cloud, JSON.stringify({ version: "1.0.0", component: "api" }), "application/vnd.relay+json")).status).toBe(200);
  });

  test("no key is asked for, and a key sent is not judged", async () => {
    const headers = { "x-api-key": "rk_live_not_a_key", authorization: "Bearer rat_not_a_token" };
    expect((await fetch(`${cloud.url}/api/v1/version/api`, { headers })).status).toBe(200);
    const res = await fetch(`${cloud.url}/api/v1/version/check`, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify({ version: "1.0.0", component: "api" }) });
    expect(res.status).toBe(200);
  });

  test("the OpenAPI document lists the three routes under versions, public, with their refusals", async () => {
    const doc = (await (await fetch(`${cloud.url}/openapi.json`)).json()) as Json;
    const ops = [doc.paths["/api/v1/version/api"].get, doc.paths["/api/v1/version/sdk"].get, doc.paths["/api/v1/version/check"].post];
    for (const op of ops) {
      expect(op.tags).toEqual(["versions"]);
      expect(op.security).toEqual([]);
      expect((op.parameters ?? []).some((p: Json) => p.name === "x-api-key")).toBe(false);
    }
    expect(Object.keys(ops[1].responses)).toEqual(expect.arrayContaining(["200", "304", "500"]));
    expect(Object.keys(ops[2].responses)).toEqual(expect.arrayContaining(["200", "400", "413", "415", "500"]));
  });
});
