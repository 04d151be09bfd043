// A local fake of the Stripe API for the billing tests, speaking Stripe's wire format: form-encoded
// requests with bracketed keys (line_items[0][price]), a Bearer secret key, JSON objects with their
// `object` names (customer, checkout.session, billing_portal.session), Idempotency-Key replays, and
// Stripe's error shape ({error: {type, code?, param?, message}} with its statuses). It records every
// request, so a test can read the fields the official SDK really sent. It also builds the subscription
// and event objects Stripe would send to a webhook, for the test to sign with the SDK's test helper.

type Json = Record<string, any>;

export interface StripeRequest {
  method: string;
  path: string;
  /** The form fields as sent (bracketed keys flat). */
  form: Record<string, string>;
  /** The same fields decoded into objects and arrays, as Stripe reads them. */
  params: Json;
  headers: Record<string, string>;
}

export interface FakeStripe {
  url: string;
  readonly secretKey: string;
  readonly requests: StripeRequest[];
  readonly customers: Map<string, Json>;
  /** A price checkout accepts; others are refused as Stripe does (resource_missing). */
  addPrice(id: string): void;
  /** A subscription object of `customer` on `price`. */
  subscription(opts: { id: string; customer: string; price: string; status: string; created: number }): Json;
  /** An event object, as Stripe posts it to a webhook endpoint. */
  event(type: string, object: Json, created: number): Json;
  close(): Promise<void>;
}

export async function startFakeStripe(secretKey = "sk_test_fake_0123456789"): Promise<FakeStripe> {
  const requests: StripeRequest[] = [];
  const customers = new Map<string, Json>();
  const prices = new Set<string>();
  const replays = new Map<string, { status: number; body: Json }>();
  const now = () => Math.floor(Date.now() / 1000);

  const routes: Record<string, (p: Json) => { status: number; body: Json }> = {
    "POST /v1/customers": (p) => {
      const customer = { id: newId("cus"), object: "customer", created: now(), email: p.email ?? null, name: p.name ?? null, metadata: p.metadata ?? {}, livemode: false };
      customers.set(customer.id, customer);
      return ok(customer);
    },
    "POST /v1/checkout/sessions": (p) => {
      for (const required of ["mode", "success_url"]) if (!p[required]) return missingParam(required);
      if (p.customer && !customers.has(p.customer)) return noSuch("customer", p.customer, "customer");
      const items = (p.line_items ?? []) as Json[];
      if (!items.length) return missingParam("line_items");
      const price = items[0]!.price;
      if (!prices.has(price)) return noSuch("price", price, "line_items[0][price]");
      const id = newId("cs_test");
      return ok({
        id,
        object: "checkout.session",
        mode: p.mode,
        status: "open",
        payment_status: "unpaid",
        customer: p.customer ?? null,
        client_reference_id: p.client_reference_id ?? null,
        success_url: p.success_url,
        cancel_url: p.cancel_url ?? null,
        subscription: null,
        metadata: p.metadata ?? {},
        created: now(),
        expires_at: now() + 86_400,
        livemode: false,
        url: `https://checkout.stripe.com/c/pay/${id}`,
      });
    },
    "POST /v1/billing_portal/sessions": (p) => {
      if (!p.customer) return missingParam("customer");
      if (!customers.has(p.customer)) return noSuch("customer", p.customer, "customer");
      const id = newId("bps");
      return ok({ id, object: "billing_portal.session", customer: p.customer, return_url: p.return_url ?? null, configuration: "bpc_fake", created: now(), livemode: false, locale: null, on_behalf_of: null, flow: null, url: `https://billing.stripe.com/p/session/test_${id}` });
    },
  };

  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const url = new URL(request.url);
      const raw = await request.text();
      const form = Object.fromEntries(new URLSearchParams(raw));
      const req: StripeRequest = { method: request.method, path: url.pathname, form, params: decodeForm(raw), headers: Object.fromEntries(request.headers) };
      requests.push(req);
      const answer = (a: { status: number; body: Json }) => Response.json(a.body, { status: a.status, headers: { "request-id": newId("req") } });
      if (request.headers.get("authorization") !== `Bearer ${secretKey}`) {
        return answer(stripeError(401, "invalid_request_error", `Invalid API Key provided: ${(request.headers.get("authorization") ?? "").slice(7, 15)}***`));
      }
      const route = routes[`${request.method} ${url.pathname}`];
      if (!route) return answer(stripeError(404, "invalid_request_error", `Unrecognized request URL (${request.method}: ${url.pathname}).`));
      // Stripe answers a replayed Idempotency-Key with the first answer.
      const key = request.headers.get("idempotency-key");
      const replay = key ? replays.get(key) : undefined;
      if (replay) return answer(replay);
      const result = route(req.params);
      if (key) replays.set(key, result);
      return answer(result);
    },
  });

  return {
    url: `http://127.0.0.1:${server.port}`,
    secretKey,
    requests,
    customers,
    addPrice: (id) => void prices.add(id),
    subscription: ({ id, customer, price, status, created }) => ({
      id,
      object: "subscription",
      customer,
      status,
      created,
      cancel_at_period_end: false,
      canceled_at: status === "canceled" ? created : null,
      livemode: false,
      metadata: {},
      items: { object: "list", has_more: false, url: `/v1/subscription_items?subscription=${id}`, data: [{ id: newId("si"), object: "subscription_item", price: { id: price, object: "price", recurring: { interval: "month" } }, quantity: 1 }] },
    }),
    event: (type, object, created) => ({
      id: newId("evt"),
      object: "event",
      api_version: "2025-01-01",
      created,
      data: { object },
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      type,
    }),
    close: async () => void (await server.stop(true)),
  };
}

const newId = (prefix: string) => `${prefix}_${crypto.randomUUID().replaceAll("-", "").slice(0, 24)}`;
const ok = (body: Json) => ({ status: 200, body });

function stripeError(status: number, type: string, message: string, extra: Json = {}) {
  return { status, body: { error: { type, message, ...extra } } };
}

const missingParam = (param: string) => stripeError(400, "invalid_request_error", `Missing required param: ${param}.`, { code: "parameter_missing", param });
const noSuch = (what: string, id: string, param: string) => stripeError(400, "invalid_request_error", `No such ${what}: '${id}'`, { code: "resource_missing", param });

/** Stripe's form encoding decoded: a[b]=1 → {a: {b: "1"}}, a[0][b]=1 → {a: [{b: "1"}]}. */
export function decodeForm(raw: string): Json {
  const out: Json = {};
  for (const [key, value] of new URLSearchParams(raw)) {
    const path = key.replace(/\]/g, "").split("[");
    let node: Json = out;
    path.forEach((part, i) => {
      if (i === path.length - 1) {
        node[part] = value;
        return;
      }
      node[part] ??= /^\d+$/.test(path[i + 1]!) ? [] : {};
      node = node[part];
    });
  }
  return out;
}
