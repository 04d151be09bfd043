// Billing of the hosted plans (issue 38 item 7) over real HTTP on the `relay cloud` listener, on SQLite
// and on Postgres, through the official stripe SDK against a local fake Stripe (tests/fakes/stripe.ts):
// checkout (the form fields Stripe received, the session's url) and the portal; Stripe's events signed
// with the SDK's own test helper (its async form: under Bun the SDK signs with Web Crypto) — a customer.subscription.updated moves the team's plan and so its
// rate limit, the same event twice changes nothing more, an older event is stale, a deletion brings
// the team back to free, another team's customer is left alone; badly signed events refused with
// nothing changed; each invalid field named; keys missing, wrong, read-only and of another team.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Stripe from "stripe";
import { createKey, createTeam } from "../../src/core/tenancy/api-keys.ts";
import { listen, type Listener } from "../../src/runtime/serve.ts";
import { buildFetch } from "../../src/surfaces/index.ts";
import { startFakeStripe, type FakeStripe } from "../fakes/stripe.ts";
import { startWorld, type World } from "../proxy/world.ts";
import { postgresDatabase } from "./pg-database.ts";

type Json = Record<string, any>;
const WEBHOOK_SECRET = "whsec_test_relay_billing_0123456789";
const PRICES = { maker: "price_maker_test", pro: "price_pro_test" };
const URLS = { success_url: "https://app.example/billing/done", cancel_url: "https://app.example/billing" };

describe.each(["sqlite", "postgres"] as const)("billing through Stripe on %s", (driver) => {
  let db: Awaited<ReturnType<typeof postgresDatabase>> | undefined;
  let stripe: FakeStripe;
  let w: World;
  let cloud: Listener;
  let home: string;
  let teamA: { id: string; key: string; readOnly: string };
  let teamB: { id: string; key: string };

  const call = (path: string, key: string | undefined, body?: unknown) =>
    fetch(`${cloud.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(key ? { "x-api-key": key } : {}) },
      body: typeof body === "string" ? body : JSON.stringify(body ?? {}),
    });
  const store = () => w.relay.relay.store;
  const planOf = async (teamId: string) => (await store().teams.getTeam(teamId))!.plan;
  const rateLimitOf = async (key: string) => (await fetch(`${cloud.url}/api/keys`, { headers: { "x-api-key": key } })).headers.get("x-ratelimit-limit");
  const nowSec = () => Math.floor(w.relay.relay.clock.now() / 1000);
  const customerOf = async (teamId: string) => (await store().billing.getAccount(teamId))!.stripe_customer_id;

  /** Posts `event` to the webhook as Stripe does, signed with the SDK's test helper. */
  async function deliver(event: Json | string, opts: { secret?: string; timestamp?: number; signature?: string | null } = {}) {
    const payload = typeof event === "string" ? event : JSON.stringify(event, null, 2);
    const signature =
      opts.signature !== undefined ? opts.signature : await Stripe.webhooks.generateTestHeaderStringAsync({ payload, secret: opts.secret ?? WEBHOOK_SECRET, timestamp: opts.timestamp ?? nowSec() });
    return fetch(`${cloud.url}/v1/billing/webhook`, {
      method: "POST",
      headers: { "content-type": "application/json; charset=utf-8", "user-agent": "Stripe/1.0 (+https://stripe.com/docs/webhooks)", ...(signature === null ? {} : { "stripe-signature": signature }) },
      body: payload,
    });
  }
  const subscriptionEvent = (type: string, customer: string, status: string, price: string, created: number, id = "sub_a") =>
    stripe.event(type, stripe.subscription({ id, customer, price, status, created: created - 60 }), created);

  async function expectError(res: Response, status: number, code: string): Promise<Json> {
    expect(res.status).toBe(status);
    const body = (await res.json()) as Json;
    expect(body).toEqual({ error: expect.objectContaining({ code, message: expect.any(String) }), request_id: expect.stringMatching(/^req_/) });
    return body;
  }
  async function expectInvalid(res: Response, parameter: string) {
    const body = await expectError(res, 400, "invalid_request");
    expect(body.error.details).toMatchObject({ parameter, expected: "string" });
  }

  beforeAll(async () => {
    if (driver === "postgres") db = await postgresDatabase("relay_billing");
    stripe = await startFakeStripe();
    stripe.addPrice(PRICES.pro);
    // PRICES.maker is configured but unknown to Stripe: buying it shows Stripe's refusal.
    home = mkdtempSync(join(tmpdir(), "relay-billing-"));
    const billing = { stripeApiBase: stripe.url, secretKey: stripe.secretKey, webhookSecret: WEBHOOK_SECRET, prices: PRICES };
    w = await startWorld({ home, config: { cloud: { billing, accounts: { passwordMemoryKiB: 8, passwordTimeCost: 1 } }, ...(db ? { store: { driver: "postgres", postgresUrl: db.url } } : {}) } });
    cloud = listen({ hostname: "127.0.0.1", port: 0, fetch: buildFetch(w.relay.relay, "cloud"), maxRequestBodySize: 1 << 22, idleTimeoutSec: 30 });
    const a = await createTeam(store(), "Team A", "free");
    const b = await createTeam(store(), "Team B", "free");
    teamA = { id: a.team.id, key: a.secret, readOnly: (await createKey(store().apiKeys, a.team.id, "read_only", "viewer")).secret };
    teamB = { id: b.team.id, key: b.secret };
  });
  afterAll(async () => {
    await cloud?.stop(100);
    await w?.stop();
    await stripe?.close();
    rmSync(home, { recursive: true, force: true });
    await db?.drop();
  });

  test("portal before any checkout: 409 no_billing_account, and nothing asked of Stripe", async () => {
    await expectError(await call("/v1/billing/portal", teamB.key, { return_url: "https://app.example/settings" }), 409, "no_billing_account");
    expect(stripe.requests).toEqual([]);
  });

  test("checkout: the team's customer is made once, Stripe gets the session's form fields, the answer has its url", async () => {
    const res = await call("/v1/billing/checkout", teamA.key, { plan: "pro", ...URLS });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-ratelimit-limit")).toBe("60");
    const session = (await res.json()) as Json;
    expect(session).toEqual({ id: expect.stringMatching(/^cs_test_/), url: `https://checkout.stripe.com/c/pay/${session.id}`, plan: "pro" });

    const [customerReq, sessionReq] = stripe.requests;
    expect(customerReq).toMatchObject({ method: "POST", path: "/v1/customers", form: { name: "Team A", "metadata[team_id]": teamA.id } });
    expect(customerReq!.headers["idempotency-key"]).toBe(`relay-customer-${teamA.id}`);
    const customer = await customerOf(teamA.id);
    expect(stripe.customers.get(customer)).toMatchObject({ object: "customer", metadata: { team_id: teamA.id } });
    expect(sessionReq!.method).toBe("POST");
    expect(sessionReq!.path).toBe("/v1/checkout/sessions");
    expect(sessionReq!.headers["content-type"]).toContain("application/x-www-form-urlencoded");
    expect(sessionReq!.headers.authorization).toBe(`Bearer ${stripe.secretKey}`);
    expect(sessionReq!.form).toEqual({
      mode: "subscription",
      customer,
      client_reference_id: teamA.id,
      "line_items[0][price]": PRICES.pro,
      "line_items[0][quantity]": "1",
      success_url: URLS.success_url,
      cancel_url: URLS.cancel_url,
      "metadata[team_id]": teamA.id,
      "metadata[plan]": "pro",
      "subscription_data[metadata][team_id]": teamA.id,
      "subscription_data[metadata][plan]": "pro",
    });
    // Nothing is bought yet: the plan moves on Stripe's event, not here.
    expect(await planOf(teamA.id)).toBe("free");

    // A second checkout reuses the customer.
    const before = stripe.requests.length;
    expect((await call("/v1/billing/checkout", teamA.key, { plan: "pro", ...URLS })).status).toBe(200);
    expect(stripe.requests.slice(before).map((r) => r.path)).toEqual(["/v1/checkout/sessions"]);
    expect(stripe.requests.at(-1)!.form.customer).toBe(customer);
  });

  test("portal: a session for the team's own customer", async () => {
    const res = await call("/v1/billing/portal", teamA.key, { return_url: "https://app.example/settings" });
    expect(res.status).toBe(200);
    const session = (await res.json()) as Json;
    expect(session).toEqual({ id: expect.stringMatching(/^bps_/), url: expect.stringMatching(/^https:\/\/billing\.stripe\.com\/p\/session\//) });
    expect(stripe.requests.at(-1)).toMatchObject({ path: "/v1/billing_portal/sessions", form: { customer: await customerOf(teamA.id), return_url: "https://app.example/settings" } });
  });

  test("another team's checkout makes its own customer, named by its own id", async () => {
    const res = await call("/v1/billing/checkout", teamB.key, { plan: "pro", ...URLS });
    expect(res.status).toBe(200);
    const customerB = await customerOf(teamB.id);
    expect(customerB).not.toBe(await customerOf(teamA.id));
    expect(stripe.requests.at(-1)!.form).toMatchObject({ customer: customerB, client_reference_id: teamB.id });
  });

  test("a signed customer.subscription.updated moves the team's plan and its rate limit; twice changes nothing more", async () => {
    expect(await rateLimitOf(teamA.key)).toBe("60");
    const customer = await customerOf(teamA.id);
    const completed = stripe.event("checkout.session.completed", { id: "cs_test_done", object: "checkout.session", mode: "subscription", customer, subscription: "sub_a", client_reference_id: teamA.id, status: "complete" }, nowSec());
    expect(await (await deliver(completed)).json()).toEqual({ received: true, id: completed.id, type: "checkout.session.completed", outcome: "applied" });
    expect((await store().billing.getAccount(teamA.id))!.subscription_id).toBe("sub_a");

    const updated = subscriptionEvent("customer.subscription.updated", customer, "active", PRICES.pro, nowSec());
    const res = await deliver(updated);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ received: true, id: updated.id, type: "customer.subscription.updated", outcome: "applied" });
    expect(await planOf(teamA.id)).toBe("pro");
    expect(await rateLimitOf(teamA.key)).toBe("3000");
    expect(await store().billing.getAccount(teamA.id)).toMatchObject({ subscription_id: "sub_a", subscription_status: "active", plan: "pro", event_created: updated.created });

    // An operator moves the team meanwhile; Stripe's redelivery of the same event must not undo that.
    await store().teams.setPlan(teamA.id, "maker");
    const again = await deliver(updated);
    expect(again.status).toBe(200);
    expect(((await again.json()) as Json).outcome).toBe("duplicate");
    expect(await planOf(teamA.id)).toBe("maker");
    expect(await rateLimitOf(teamA.key)).toBe("600");
    await store().teams.setPlan(teamA.id, "pro");

    // The live subscription is changed in the portal, not by a second checkout.
    await expectError(await call("/v1/billing/checkout", teamA.key, { plan: "pro", ...URLS }), 409, "subscription_exists");
  });

  test("out of order: an event older than the one applied is stale; a later deletion brings the team back to free", async () => {
    const customer = await customerOf(teamA.id);
    const applied = (await store().billing.getAccount(teamA.id))!.event_created!;
    const late = subscriptionEvent("customer.subscription.updated", customer, "canceled", PRICES.pro, applied - 30);
    expect(((await (await deliver(late)).json()) as Json).outcome).toBe("stale");
    expect(await planOf(teamA.id)).toBe("pro");

    // Past due keeps the plan meanwhile (Stripe is retrying the payment).
    const pastDue = subscriptionEvent("customer.subscription.updated", customer, "past_due", PRICES.pro, applied + 10);
    expect(((await (await deliver(pastDue)).json()) as Json).outcome).toBe("applied");
    expect(await planOf(teamA.id)).toBe("pro");

    const deleted = subscriptionEvent("customer.subscription.deleted", customer, "canceled", PRICES.pro, applied + 20);
    expect(((await (await deliver(deleted)).json()) as Json).outcome).toBe("applied");
    expect(await planOf(teamA.id)).toBe("free");
    expect(await rateLimitOf(teamA.key)).toBe("60");
    expect(await store().billing.getAccount(teamA.id)).toMatchObject({ subscription_status: "canceled", plan: "free" });
  });

  test("another team's customer is untouched; a customer of no team is acknowledged and ignored", async () => {
    expect(await planOf(teamB.id)).toBe("free");
    const billingB = await store().billing.getAccount(teamB.id);
    const created = subscriptionEvent("customer.subscription.created", await customerOf(teamA.id), "trialing", PRICES.maker, nowSec() + 100);
    expect(((await (await deliver(created)).json()) as Json).outcome).toBe("applied");
    expect(await planOf(teamA.id)).toBe("maker");
    expect(await planOf(teamB.id)).toBe("free");
    expect(await store().billing.getAccount(teamB.id)).toEqual(billingB);

    const stranger = subscriptionEvent("customer.subscription.updated", "cus_nobody", "active", PRICES.pro, nowSec() + 200);
    const res = await deliver(stranger);
    expect(res.status).toBe(200);
    expect(((await res.json()) as Json).outcome).toBe("unknown_customer");
    expect([await planOf(teamA.id), await planOf(teamB.id)]).toEqual(["maker", "free"]);
    // A type Relay does not act on is acknowledged too, so Stripe stops resending it.
    expect(((await (await deliver(stripe.event("invoice.paid", { id: "in_1", object: "invoice" }, nowSec()))).json()) as Json).outcome).toBe("ignored");
  });

  test("a badly signed event is refused with 400 in the hosted error shape, and nothing changes", async () => {
    const customer = await customerOf(teamB.id);
    const event = subscriptionEvent("customer.subscription.updated", customer, "active", PRICES.pro, nowSec() + 300, "sub_b");
    const payload = JSON.stringify(event);
    const good = await Stripe.webhooks.generateTestHeaderStringAsync({ payload, secret: WEBHOOK_SECRET, timestamp: nowSec() });
    const refusals = [
      await deliver(event, { secret: "whsec_someone_else_0123456789" }),
      await deliver(payload.replace(PRICES.pro, PRICES.maker), { signature: good }),
      await deliver(event, { signature: null }),
      await deliver(event, { signature: "t=1,v1=deadbeef" }),
      await deliver(event, { timestamp: nowSec() - 600 }),
      await deliver("not json", { signature: good }),
    ];
    for (const res of refusals) await expectError(res, 400, "invalid_signature");
    expect(await planOf(teamB.id)).toBe("free");
    expect(await store().billing.eventProcessed(event.id)).toBe(false);
    // The same event, well signed, is then handled: the refusals recorded nothing.
    expect(((await (await deliver(event)).json()) as Json).outcome).toBe("applied");
    expect(await planOf(teamB.id)).toBe("pro");
  });

  test("each invalid field is a 400 naming it; broken JSON is a 400", async () => {
    await expectInvalid(await call("/v1/billing/checkout", teamA.key, { ...URLS }), "plan");
    await expectInvalid(await call("/v1/billing/checkout", teamA.key, { plan: "free", ...URLS }), "plan");
    await expectInvalid(await call("/v1/billing/checkout", teamA.key, { plan: "enterprise", ...URLS }), "plan");
    await expectInvalid(await call("/v1/billing/checkout", teamA.key, { plan: "pro", ...URLS, success_url: "ftp://app.example/done" }), "success_url");
    await expectInvalid(await call("/v1/billing/checkout", teamA.key, { plan: "pro", success_url: URLS.success_url }), "cancel_url");
    await expectInvalid(await call("/v1/billing/portal", teamA.key, { return_url: "settings" }), "return_url");
    await expectInvalid(await call("/v1/billing/portal", teamA.key, {}), "return_url");
    await expectError(await call("/v1/billing/checkout", teamA.key, "{not json"), 400, "invalid_request");
  });

  test("Stripe's refusal is a 502 that names no internals", async () => {
    // Teams A and B hold live subscriptions by now: a new team, buying the plan whose price Stripe does not know.
    const c = await createTeam(store(), "Team C", "free");
    const body = await expectError(await call("/v1/billing/checkout", c.secret, { plan: "maker", ...URLS }), 502, "payment_provider_error");
    expect(body.error.message).toContain("resource_missing");
    expect(JSON.stringify(body)).not.toContain(stripe.secretKey);
  });

  test("keys: none 401, unknown 401, read-only 403; a team acts only on its own customer", async () => {
    for (const path of ["/v1/billing/checkout", "/v1/billing/portal"]) {
      await expectError(await call(path, undefined, { plan: "pro", ...URLS }), 401, "missing_api_key");
      await expectError(await call(path, "rk_live_not_a_key_at_all", { plan: "pro", ...URLS }), 401, "invalid_api_key");
      await expectError(await call(path, teamA.readOnly, { plan: "pro", ...URLS }), 403, "permission_denied");
    }
    const res = await call("/v1/billing/portal", teamB.key, { return_url: "https://app.example/settings" });
    expect(res.status).toBe(200);
    expect(stripe.requests.at(-1)!.form.customer).toBe(await customerOf(teamB.id));
    expect(stripe.requests.at(-1)!.form.customer).not.toBe(await customerOf(teamA.id));
  });

  test("signed-in users: the owner's access token buys; a member's is 403", async () => {
    const json = async (res: Response) => {
      expect(res.status).toBe(201);
      return (await res.json()) as Json;
    };
    const post = (path: string, body: unknown, token?: string) =>
      fetch(`${cloud.url}${path}`, { method: "POST", headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body) });
    const password = "correct horse battery";
    const owner = await json(await post("/v1/accounts/signup", { email: `owner.${driver}@example.com`, password, team_name: "Owned" }));
    const invite = await json(await post("/v1/accounts/invites", { email: `member.${driver}@example.com`, role: "member" }, owner.access_token));
    const member = await json(await post("/v1/accounts/signup", { email: `member.${driver}@example.com`, password, invite: invite.invite_token }));
    const byOwner = await post("/v1/billing/checkout", { plan: "pro", ...URLS }, owner.access_token);
    expect(byOwner.status).toBe(200);
    expect(stripe.requests.at(-1)!.form.client_reference_id).toBe(owner.team.id);
    for (const path of ["/v1/billing/checkout", "/v1/billing/portal"]) {
      await expectError(await post(path, { plan: "pro", ...URLS, return_url: URLS.cancel_url }, member.access_token), 403, "permission_denied");
    }
  });
});

describe("billing on a server without Stripe settings", () => {
  test("every billing route answers 503 billing_not_configured in the hosted shape", async () => {
    const w = await startWorld();
    const cloud = listen({ hostname: "127.0.0.1", port: 0, fetch: buildFetch(w.relay.relay, "cloud"), maxRequestBodySize: 1 << 22, idleTimeoutSec: 30 });
    try {
      const { secret } = await createTeam(w.relay.relay.store, "Unbilled", "free");
      for (const path of ["/v1/billing/checkout", "/v1/billing/portal", "/v1/billing/webhook"]) {
        const res = await fetch(`${cloud.url}${path}`, { method: "POST", headers: { "content-type": "application/json", "x-api-key": secret, "stripe-signature": "t=1,v1=00" }, body: "{}" });
        expect({ path, status: res.status }).toEqual({ path, status: 503 });
        expect(await res.json()).toEqual({ error: { code: "billing_not_configured", message: expect.stringContaining("STRIPE_") }, request_id: expect.stringMatching(/^req_/) });
      }
    } finally {
      await cloud.stop(100);
      await w.stop();
    }
  });
});
