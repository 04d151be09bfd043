// Webhook triggers of deployed workflows (issue 39 item 4, spec §2.10, §4.4) over real HTTP on the
// `relay cloud` listener, on SQLite and on Postgres, against the fake vendor: the deploy body's
// `trigger` checked field by field; each option — method (POST, PUT, 405 with Allow), headers (401),
// the signature in a custom header and as Standard Webhooks (signed by the `standardwebhooks`
// library): valid, wrong, stale (the Relay's clock moved past the 300 s tolerance) and replayed —,
// rateLimit (429 with Retry-After, free again after the window), a team without Cloud features (403),
// unknown team or path (404), a body that is not a JSON object (400), the browser guard (no Origin
// passes, another origin is refused); the body reaching the vendor through {{input.…}}; and two
// instances on one Postgres agreeing on a replay.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { Webhook } from "standardwebhooks";
import { createTeam } from "../../src/core/tenancy/api-keys.ts";
import { listen, type Listener } from "../../src/runtime/serve.ts";
import { buildFetch } from "../../src/surfaces/index.ts";
import { postgresDatabase } from "../cloud/pg-database.ts";
import { eventually, startWorld, type World } from "../proxy/world.ts";
import { lastUserText } from "./world.ts";

type Json = Record<string, any>;
const STANDARD_SECRET = `whsec_${Buffer.from("0123456789abcdef0123456789abcdef").toString("base64")}`;
const CUSTOM_SECRET = "a-custom-secret-of-the-sender";

const flow = (name: string) => ({ name, steps: [{ name: "greet", model: "openai:gpt-4o-mini", userPrompt: "Hello {{input.customer.name}} from {{input.customer.city}}" }] });

async function hmacHex(secret: string, text: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return Buffer.from(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(text))).toString("hex");
}

describe.each(["sqlite", "postgres"] as const)("workflow triggers on %s", (driver) => {
  let db: Awaited<ReturnType<typeof postgresDatabase>> | undefined;
  let w: World;
  let cloud: Listener;
  let team: { id: string; key: string };
  let dark: { id: string; key: string };

  const api = (method: string, path: string, key: string, body?: unknown) =>
    fetch(`${cloud.url}${path}`, { method, headers: { "content-type": "application/json", "x-api-key": key }, body: body === undefined ? undefined : JSON.stringify(body) });
  const hook = (path: string, body: string, headers: Record<string, string> = {}, method = "POST", teamId = team.id) =>
    fetch(`${cloud.url}/hooks/${teamId}/${path}`, { method, headers: { "content-type": "application/json", ...headers }, body: method === "GET" ? undefined : body });
  async function deployWith(name: string, trigger: unknown, key = team.key): Promise<Json> {
    const res = await api("POST", "/api/v1/workflows", key, { ...flow(name), trigger });
    expect([200, 201]).toContain(res.status);
    return (await res.json()) as Json;
  }
  async function expectError(res: Response, status: number, code: string): Promise<Json> {
    const body = (await res.json()) as Json;
    expect({ status: res.status, code: body.error?.code }).toEqual({ status, code });
    expect(body.request_id).toMatch(/^req_/);
    return body;
  }
  async function accepted(res: Response): Promise<Json> {
    expect(res.status).toBe(202);
    const run = ((await res.json()) as Json).run;
    expect(run.id).toMatch(/^wfr_/);
    return run;
  }
  const finished = (id: string) =>
    eventually(async () => {
      const run = ((await (await api("GET", `/api/v1/webhooks/runs/${id}`, team.key)).json()) as Json).run;
      return run.status === "queued" || run.status === "running" ? undefined : run;
    }, `run ${id} to end`, 15_000);
  const nowSec = () => Math.floor(w.clock.now() / 1000);

  beforeAll(async () => {
    if (driver === "postgres") db = await postgresDatabase("relay_hooks");
    w = await startWorld({ config: db ? { store: { driver: "postgres", postgresUrl: db.url } } : {} });
    cloud = listen({ hostname: "127.0.0.1", port: 0, fetch: buildFetch(w.relay.relay, "cloud"), maxRequestBodySize: 1 << 22, idleTimeoutSec: 30 });
    const store = w.relay.relay.store;
    const a = await createTeam(store, "Hooks A", "pro");
    team = { id: a.team.id, key: a.secret };
    await store.accounts.setCloudEnabled(team.id, true);
    const b = await createTeam(store, "Hooks B", "pro");
    dark = { id: b.team.id, key: b.secret };
    expect((await api("PUT", "/api/v1/credentials", team.key, { provider: "openai", api_key: "team-openai-hooks-0123456789" })).status).toBe(200);
  });
  beforeEach(() => w.openai.setDefault(() => ({ text: "Hi!", usage: { input: 10, output: 5 } })));
  // Each test's runs end before the next begins, so the vendor's requests are the test's own.
  afterEach(async () => {
    await eventually(async () => {
      const runs = ((await (await api("GET", "/api/v1/webhooks/runs?limit=100", team.key)).json()) as Json).data as Json[];
      return runs.every((r) => r.status !== "queued" && r.status !== "running") || undefined;
    }, "the test's runs to end", 15_000);
    w.openai.reset();
  });
  afterAll(async () => {
    await cloud?.stop(100);
    await w?.stop();
    await db?.drop();
  });

  test("deploy checks the trigger field by field: each refusal a 400 naming it", async () => {
    const bad: [unknown, string][] = [
      ["orders", "trigger"],
      [{}, "trigger.endpoint"],
      [{ endpoint: "a//b" }, "trigger.endpoint"],
      [{ endpoint: "a?b" }, "trigger.endpoint"],
      [{ endpoint: "a", method: "GET" }, "trigger.method"],
      [{ endpoint: "a", headers: ["x"] }, "trigger.headers"],
      [{ endpoint: "a", headers: { "x-token": 7 } }, "trigger.headers.x-token"],
      [{ endpoint: "a", headers: { "bad header": "v" } }, "trigger.headers.bad header"],
      [{ endpoint: "a", secret: "not-a-whsec-secret-at-all" }, "trigger.secret"],
      [{ endpoint: "a", secret: "short", signatureHeader: "x-sig" }, "trigger.secret"],
      [{ endpoint: "a", secret: CUSTOM_SECRET, signatureHeader: "x sig" }, "trigger.signatureHeader"],
      [{ endpoint: "a", signatureHeader: "x-sig" }, "trigger.signatureHeader"],
      [{ endpoint: "a", rateLimit: { requests: 0, window: "1m" } }, "trigger.rateLimit.requests"],
      [{ endpoint: "a", rateLimit: { requests: 5, window: "1 minute" } }, "trigger.rateLimit.window"],
      [{ endpoint: "a", rateLimit: { requests: 5, window: "2d" } }, "trigger.rateLimit.window"],
      [{ endpoint: "a", rateLimit: { requests: 5, window: 60 } }, "trigger.rateLimit.window"],
    ];
    for (const [trigger, parameter] of bad) {
      const res = await api("POST", "/api/v1/workflows", team.key, { ...flow("refused"), trigger });
      const body = await expectError(res, 400, "invalid_request");
      expect(body.error.details.parameter, JSON.stringify(trigger)).toBe(parameter);
    }
    // Nothing was deployed by a refused body.
    const list = (await (await api("GET", "/api/v1/workflows", team.key)).json()) as Json;
    expect(list.data.map((x: Json) => x.name)).not.toContain("refused");
  });

  test("an open trigger: the JSON body reaches {{input.…}}, 202 at once, the run completes in the background", async () => {
    const deployed = await deployWith("greeter", { endpoint: "/orders/new/", rateLimit: { requests: 100, window: "1h" } });
    expect(deployed.trigger).toEqual({
      endpoint: "orders/new", url: `${cloud.url}/hooks/${team.id}/orders/new`, method: "POST", headers: [], signed: false, signatureHeader: null, rateLimit: { requests: 100, window: "1h" },
    });
    // No Origin header (a server calling): the browser guard lets it through.
    const run = await accepted(await fetch(deployed.trigger.url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ customer: { name: "Ada", city: "Paris" } }) }));
    expect(run).toMatchObject({ workflow: "greeter", status: "queued", input: { customer: { name: "Ada", city: "Paris" } } });
    const done = await finished(run.id);
    expect(done.status).toBe("succeeded");
    expect(done.result.finalOutput).toBe("Hi!");
    expect(w.openai.requests.map(lastUserText)).toEqual(["Hello Ada from Paris"]);
    // A web page of another origin is refused by the listener's browser guard.
    const fromPage = await hook("orders/new", "{}", { origin: "https://evil.example" });
    expect(fromPage.status).toBe(403);
    await fromPage.body?.cancel();
  });

  test("method: PUT when configured; the other one is 405 with Allow; GET on any trigger path is 405", async () => {
    await deployWith("putter", { endpoint: "put-me", method: "PUT" });
    await accepted(await hook("put-me", "{}", {}, "PUT"));
    await accepted(await hook("put-me/", "{}", {}, "PUT"));
    const post = await hook("put-me", "{}");
    await expectError(post, 405, "method_not_allowed");
    expect(post.headers.get("allow")).toBe("PUT");
    const get = await hook("put-me", "", {}, "GET");
    await expectError(get, 405, "method_not_allowed");
    expect(get.headers.get("allow")).toBe("POST, PUT");
  });

  test("headers must be present with their values (401); a body that is not a JSON object is 400", async () => {
    await deployWith("gated", { endpoint: "gated", headers: { "X-Shared-Token": "open sesame" } });
    await expectError(await hook("gated", "{}"), 401, "invalid_header");
    await expectError(await hook("gated", "{}", { "x-shared-token": "open sesame!" }), 401, "invalid_header");
    await expectError(await hook("gated", "[1, 2]", { "x-shared-token": "open sesame" }), 400, "invalid_request");
    await expectError(await hook("gated", "{", { "x-shared-token": "open sesame" }), 400, "invalid_request");
    await accepted(await hook("gated", '{"a":1}', { "X-SHARED-TOKEN": "open sesame" }));
  });

  test("a custom signature header: valid, wrong, stale and replayed", async () => {
    await deployWith("signed", { endpoint: "signed/custom", secret: CUSTOM_SECRET, signatureHeader: "X-Signature" });
    const body = JSON.stringify({ customer: { name: "Bo", city: "Oslo" } });
    const signed = async (t: number, text = body, secret = CUSTOM_SECRET) => ({ "x-signature": `t=${t},v1=${await hmacHex(secret, `${t}.${text}`)}` });

    await expectError(await hook("signed/custom", body), 401, "invalid_signature");
    await expectError(await hook("signed/custom", body, await signed(nowSec(), body, "another-secret-entirely")), 401, "invalid_signature");
    await expectError(await hook("signed/custom", body, await signed(nowSec(), "{}")), 401, "invalid_signature");
    await expectError(await hook("signed/custom", body, { "x-signature": "v1=abc" }), 401, "invalid_signature");

    const good = await signed(nowSec());
    const run = await accepted(await hook("signed/custom", body, good));
    await finished(run.id);
    expect(w.openai.requests.map(lastUserText)).toEqual(["Hello Bo from Oslo"]);
    await expectError(await hook("signed/custom", body, good), 401, "replayed_delivery");

    // Signed 301 s ago by the Relay's clock: stale. Signed 299 s ago: still good.
    const old = await signed(nowSec() - 299);
    const older = await signed(nowSec() - 301);
    await expectError(await hook("signed/custom", body, older), 401, "invalid_signature");
    await accepted(await hook("signed/custom", body, old));
    // The clock moves on: a delivery signed before is stale now, even unseen.
    const before = await signed(nowSec() + 1);
    w.clock.advance(302_000);
    await expectError(await hook("signed/custom", body, before), 401, "invalid_signature");
  });

  test("Standard Webhooks signatures (signed by the standardwebhooks library): valid, wrong, stale and replayed", async () => {
    await deployWith("standard", { endpoint: "std", secret: STANDARD_SECRET });
    const body = JSON.stringify({ customer: { name: "Cy", city: "Rome" } });
    const sign = (id: string, atSec: number, secret = STANDARD_SECRET, text = body) => ({
      "webhook-id": id, "webhook-timestamp": String(atSec), "webhook-signature": new Webhook(secret).sign(id, new Date(atSec * 1000), text),
    });

    await expectError(await hook("std", body), 401, "invalid_signature");
    const otherSecret = `whsec_${Buffer.from("another-secret-of-32-bytes-long!").toString("base64")}`;
    await expectError(await hook("std", body, sign("msg_1", nowSec(), otherSecret)), 401, "invalid_signature");
    await expectError(await hook("std", body, sign("msg_1", nowSec(), STANDARD_SECRET, "{}")), 401, "invalid_signature");

    const good = sign("msg_1", nowSec());
    const run = await accepted(await hook("std", body, good));
    await finished(run.id);
    expect(w.openai.requests.map(lastUserText)).toEqual(["Hello Cy from Rome"]);
    // The same delivery again, and the same id signed anew: both replays.
    await expectError(await hook("std", body, good), 401, "replayed_delivery");
    await expectError(await hook("std", body, sign("msg_1", nowSec() + 1)), 401, "replayed_delivery");

    await expectError(await hook("std", body, sign("msg_2", nowSec() - 301)), 401, "invalid_signature");
    await expectError(await hook("std", body, sign("msg_2", nowSec() + 301)), 401, "invalid_signature");
    const early = sign("msg_3", nowSec());
    w.clock.advance(301_000);
    await expectError(await hook("std", body, early), 401, "invalid_signature");
    await accepted(await hook("std", body, sign("msg_3", nowSec())));
  });

  test("rateLimit: over it 429 with Retry-After, which the window frees; the limit is per trigger", async () => {
    await deployWith("limited", { endpoint: "limited", rateLimit: { requests: 2, window: "30s" } });
    await deployWith("unlimited", { endpoint: "unlimited" });
    await accepted(await hook("limited", "{}"));
    w.clock.advance(10_000);
    await accepted(await hook("limited", "{}"));
    const over = await hook("limited", "{}");
    await expectError(over, 429, "rate_limit_exceeded");
    // The first call leaves the 30 s window in 20 s.
    expect(over.headers.get("retry-after")).toBe("20");
    await accepted(await hook("unlimited", "{}"));
    w.clock.advance(20_000);
    await accepted(await hook("limited", "{}"));
    await expectError(await hook("limited", "{}"), 429, "rate_limit_exceeded");
  });

  test("a team without Cloud features: 403; unknown team or path: 404; deploying without a trigger removes it", async () => {
    const darkDeploy = await deployWith("dark", { endpoint: "dark" }, dark.key);
    expect(darkDeploy.trigger.url).toBe(`${cloud.url}/hooks/${dark.id}/dark`);
    await expectError(await hook("dark", "{}", {}, "POST", dark.id), 403, "cloud_disabled");
    await expectError(await hook("dark", "{}"), 404, "not_found");
    await expectError(await hook("dark", "{}", {}, "POST", "team_nonexistent"), 404, "not_found");

    await deployWith("moving", { endpoint: "moving" });
    await accepted(await hook("moving", "{}"));
    const redeployed = await deployWith("moving", undefined);
    expect(redeployed.trigger).toBeNull();
    await expectError(await hook("moving", "{}"), 404, "not_found");
  });
});

describe("workflow triggers on two instances sharing Postgres", () => {
  let db: Awaited<ReturnType<typeof postgresDatabase>>;
  const worlds: World[] = [];
  const clouds: Listener[] = [];

  beforeAll(async () => {
    db = await postgresDatabase("relay_hooks_pair");
    // Instances sharing a database share the master key, which seals trigger secrets.
    const env = { RELAY_MASTER_KEY: "ab".repeat(32) };
    for (let i = 0; i < 2; i++) {
      const w = await startWorld({ config: { store: { driver: "postgres", postgresUrl: db.url } }, env });
      worlds.push(w);
      clouds.push(listen({ hostname: "127.0.0.1", port: 0, fetch: buildFetch(w.relay.relay, "cloud"), maxRequestBodySize: 1 << 22, idleTimeoutSec: 30 }));
    }
  });
  afterAll(async () => {
    for (const c of clouds) await c.stop(100);
    for (const w of worlds) await w.stop();
    await db?.drop();
  });

  test("a delivery accepted by one instance is a replay on the other", async () => {
    const store = worlds[0]!.relay.relay.store;
    const { team, secret: key } = await createTeam(store, "Hooks pair", "pro");
    await store.accounts.setCloudEnabled(team.id, true);
    const deploy = await fetch(`${clouds[0]!.url}/api/v1/workflows`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": key },
      body: JSON.stringify({ ...flow("paired"), trigger: { endpoint: "pair", secret: CUSTOM_SECRET, signatureHeader: "x-signature" } }),
    });
    expect(deploy.status).toBe(201);
    const body = JSON.stringify({ customer: { name: "Di", city: "Lima" } });
    const t = Math.floor(Date.now() / 1000);
    const headers = { "content-type": "application/json", "x-signature": `t=${t},v1=${await hmacHex(CUSTOM_SECRET, `${t}.${body}`)}` };
    const first = await fetch(`${clouds[1]!.url}/hooks/${team.id}/pair`, { method: "POST", headers, body });
    expect(first.status).toBe(202);
    await first.body?.cancel();
    const again = await fetch(`${clouds[0]!.url}/hooks/${team.id}/pair`, { method: "POST", headers, body });
    expect(again.status).toBe(401);
    expect(((await again.json()) as Json).error.code).toBe("replayed_delivery");
  });
});
