// Budgets that hold (issue 34, item 6): a burst of requests without max_tokens against a vendor
// that writes to its limit must not spend past the budget, and a max_tokens that is negative,
// fractional or absurd is refused before any vendor call.
import { expect } from "bun:test";
import { chatBody, messagesBody, post, runs, startWorld, type World } from "../../proxy/world.ts";
import { priced, publishedModel, writesToItsLimit } from "./lib-budgets.ts";
import { attack } from "./tally.ts";

const MODEL = "gpt-4o-mini";
const BUDGET_USD = 0.01;
const REQUESTS = 200;

async function withWorld(config: Record<string, unknown>, fn: (w: World) => Promise<void>): Promise<void> {
  const w = await startWorld({ config });
  try {
    await fn(w);
  } finally {
    await w.stop();
  }
}

attack("budget: 200 concurrent requests without max_tokens stay within a $0.01 daily budget", () =>
  withWorld({ limits: { dailyUsd: BUDGET_USD } }, async (w) => {
    const model = await publishedModel(w.url, MODEL);
    // Latency keeps all 200 in flight together; every answer runs to the model's real maximum output.
    w.openai.setDefault(writesToItsLimit(model.maxOutput, 150));
    const responses = await Promise.all(
      Array.from({ length: REQUESTS }, (_, i) =>
        post(w.url, "/v1/chat/completions", chatBody(MODEL, `Write an endless essay, part ${i}.`, i % 2 ? { stream: true } : {})).then(async (r) => {
          await r.text(); // a stream's run is settled when its body ends
          return r;
        }),
      ),
    );
    const served = responses.filter((r) => r.status === 200).length;
    const refused = responses.filter((r) => r.status === 429).length;
    const status = await w.relay.relay.budget.status();
    const spent = status.daily.spentUsd;
    const ok = (await runs(w)).filter((r) => r.status === 200 && r.outcome === "ok");
    const servedSpend = ok.reduce((s, r) => s + r.costUsd, 0);
    console.log(
      `budget $${BUDGET_USD}, spent $${spent.toFixed(6)} (${((spent / BUDGET_USD) * 100).toFixed(1)} %), served ${served} of ${REQUESTS}` +
        ` (refused ${refused}; served requests spent $${servedSpend.toFixed(6)}, ${((servedSpend / BUDGET_USD) * 100).toFixed(1)} %)`,
    );
    expect(served + refused).toBe(REQUESTS);
    expect(w.openai.requests).toHaveLength(served);
    // Every run is priced through the catalog price Relay publishes, at the tokens the vendor billed.
    for (const r of ok) expect(r.costUsd).toBeCloseTo(priced(model, r.inputTokens, r.outputTokens), 12);
    expect(status.daily.reservedUsd).toBe(0);
    expect(spent).toBeCloseTo(servedSpend, 9);
    expect(spent).toBeLessThanOrEqual(BUDGET_USD);
    // Refusing everything does not pass: the budget is there to be spent.
    expect(servedSpend).toBeGreaterThanOrEqual(0.8 * BUDGET_USD);
  }),
  60_000,
);

/** Each bad max-tokens value, under each field name a codec reads, on the route that reads it. */
const BAD_VALUES: unknown[] = [-1, 0, 1.5, 1e12, 2 ** 53];
const FIELDS: Array<{ path: string; field: string; body: (v: unknown) => Record<string, unknown> }> = [
  { path: "/v1/messages", field: "max_tokens", body: (v) => messagesBody("claude-haiku-4-5", "Say hi", { max_tokens: v }) },
  { path: "/v1/chat/completions", field: "max_tokens", body: (v) => chatBody(MODEL, "Say hi", { max_tokens: v }) },
  { path: "/v1/chat/completions", field: "max_completion_tokens", body: (v) => chatBody(MODEL, "Say hi", { max_completion_tokens: v }) },
  // A good value in one field must not carry a bad one in the other past the check.
  { path: "/v1/chat/completions", field: "max_tokens beside a valid max_completion_tokens", body: (v) => chatBody(MODEL, "Say hi", { max_completion_tokens: 64, max_tokens: v }) },
];

attack("budget: negative, fractional or absurd max_tokens is a 400 before any vendor call", () =>
  withWorld({ limits: { dailyUsd: 5 } }, async (w) => {
    const accepted: string[] = [];
    for (const f of FIELDS) {
      for (const v of BAD_VALUES) {
        const res = await post(w.url, f.path, f.body(v));
        const body = (await res.json()) as any;
        const shaped = f.path === "/v1/messages" ? body?.type === "error" && typeof body.error?.message === "string" : typeof body?.error?.message === "string";
        if (res.status !== 400 || !shaped) accepted.push(`${f.path} ${f.field}=${v} → ${res.status}`);
      }
    }
    const vendorCalls = w.anthropic.requests.length + w.openai.requests.length;
    console.log(`bad max_tokens tried: ${FIELDS.length * BAD_VALUES.length}, accepted: ${accepted.length}, vendor calls: ${vendorCalls}`);
    if (accepted.length) console.log(`accepted: ${accepted.join("; ")}`);
    expect(accepted).toEqual([]);
    expect(vendorCalls).toBe(0);
  }),
);
