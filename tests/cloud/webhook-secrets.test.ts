// Webhook signing secrets at rest (src/core/webhooks/secrets.ts), on SQLite and on Postgres: an
// endpoint stored before sealing (plain `whsec_…` secrets) keeps being delivered to, signed with the
// same secrets, and its secrets are sealed in place when the cloud listener starts; a Relay whose
// master key is not the one the secrets were sealed with sends nothing (no unsigned or garbage-signed
// delivery), records the failed attempt and logs why.
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Webhook } from "standardwebhooks";
import { toBase64 } from "../../src/core/bytes.ts";
import { createTeam } from "../../src/core/tenancy/api-keys.ts";
import { newSecret } from "../../src/core/webhooks/signing.ts";
import { listen, type Listener } from "../../src/runtime/serve.ts";
import { buildFetch } from "../../src/surfaces/index.ts";
import { chatBody, eventually, startWorld, type World } from "../proxy/world.ts";
import { postgresDatabase } from "./pg-database.ts";

const { model: _, ...chatPayload } = chatBody("gpt-4o-mini");
const masterKeyValue = () => toBase64(crypto.getRandomValues(new Uint8Array(32)));

function startReceiver() {
  const got: { headers: Record<string, string>; body: string }[] = [];
  const listener = listen({
    hostname: "127.0.0.1",
    port: 0,
    fetch: async (request) => {
      got.push({ headers: Object.fromEntries(request.headers), body: await request.text() });
      return new Response(null, { status: 200 });
    },
    maxRequestBodySize: 1 << 20,
    idleTimeoutSec: 10,
  });
  return { url: `${listener.url}/hook`, got, stop: () => listener.stop(100) };
}

const cloudOf = (w: World): Listener => listen({ hostname: "127.0.0.1", port: 0, fetch: buildFetch(w.relay.relay, "cloud"), maxRequestBodySize: 1 << 22, idleTimeoutSec: 30 });

const call = (cloud: Listener, key: string, method: string, path: string, body?: unknown) =>
  fetch(`${cloud.url}${path}`, { method, headers: { "x-api-key": key, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });

describe.each(["sqlite", "postgres"] as const)("webhook signing secrets at rest on %s", (driver) => {
  async function setUp() {
    const db = driver === "postgres" ? await postgresDatabase("relay_webhook_secrets") : undefined;
    const home = mkdtempSync(join(tmpdir(), "relay-webhook-secrets-"));
    const receiver = startReceiver();
    const config = { cloud: { allowPrivateNetworks: true }, ...(db ? { store: { driver: "postgres", postgresUrl: db.url } } : {}) };
    return {
      receiver,
      start: (env: Record<string, string>) => startWorld({ config, home, env }),
      async cleanUp() {
        await receiver.stop();
        await db?.drop();
        rmSync(home, { recursive: true, force: true });
      },
    };
  }

  test("an endpoint stored with plain secrets is still signed for, and sealed in place when the cloud listener starts", async () => {
    const s = await setUp();
    const w = await s.start({ RELAY_MASTER_KEY: masterKeyValue() });
    let cloud: Listener | undefined;
    try {
      const { team, secret: key } = await createTeam(w.relay.relay.store, "Legacy", "pro");
      const [current, previous] = [newSecret(), newSecret()];
      // As a Relay from before sealing wrote it.
      await w.relay.relay.store.webhooks.insertEndpoint({
        id: "we_legacy1",
        team_id: team.id,
        url: s.receiver.url,
        events: ["relay.completed"],
        description: "",
        secret: current,
        previous_secret: previous,
        previous_secret_expires_at: w.clock.now() + 3_600_000,
        enabled: true,
        created_at: new Date().toISOString(),
      });
      cloud = cloudOf(w);
      const stored = await eventually(async () => {
        const e = (await w.relay.relay.store.webhooks.getEndpoint("we_legacy1"))!;
        return e.secret.startsWith("v1:") && e.previous_secret!.startsWith("v1:") ? e : undefined;
      }, "the secrets sealed");
      expect(JSON.stringify(stored)).not.toContain(current.slice(6, 30));
      expect(JSON.stringify(stored)).not.toContain(previous.slice(6, 30));
      // Nothing left to seal: a second run changes nothing.
      expect(await w.relay.relay.store.webhooks.endpointsWithPlainSecrets()).toEqual([]);

      expect((await call(cloud, key, "POST", "/api/relay", { to: "gpt-4o-mini", payload: chatPayload })).status).toBe(200);
      const [r] = await eventually(() => (s.receiver.got.length >= 1 ? s.receiver.got : undefined), "a delivery");
      expect(new Webhook(current).verify(r!.body, r!.headers)).toMatchObject({ type: "relay.completed" });
      expect(new Webhook(previous).verify(r!.body, r!.headers)).toMatchObject({ type: "relay.completed" });
    } finally {
      await cloud?.stop(100);
      await w.stop();
      await s.cleanUp();
    }
  });

  test("a Relay with another master key sends nothing, records the failed attempt and logs why", async () => {
    const s = await setUp();
    const first = await s.start({ RELAY_MASTER_KEY: masterKeyValue() });
    let cloud = cloudOf(first);
    const { secret: key } = await createTeam(first.relay.relay.store, "Rekeyed", "pro");
    const created = (await (await call(cloud, key, "POST", "/api/webhooks", { url: s.receiver.url, events: ["relay.completed"] })).json()) as any;
    await cloud.stop(100);
    await first.stop();

    const other = await s.start({ RELAY_MASTER_KEY: masterKeyValue() });
    cloud = cloudOf(other);
    try {
      expect((await call(cloud, key, "POST", "/api/relay", { to: "gpt-4o-mini", payload: chatPayload })).status).toBe(200);
      const [d] = await eventually(async () => {
        const page = (await (await call(cloud, key, "GET", `/api/webhooks/${created.webhook.id}/deliveries`)).json()) as any;
        return page.deliveries[0]?.attempts >= 1 ? page.deliveries : undefined;
      }, "the first attempt");
      expect(d).toMatchObject({ status: "pending", attempts: 1, last_status: null, last_error: expect.stringContaining("cannot be decrypted") });
      expect(s.receiver.got).toHaveLength(0);
      expect(other.relay.logs.filter((l) => l.includes("a webhook signing secret cannot be opened") && l.includes("master key"))).toHaveLength(1);
      expect(other.relay.logs.join("\n")).not.toContain(created.secret);
    } finally {
      await cloud.stop(100);
      await other.stop();
      await s.cleanUp();
    }
  });
});
