// The built-in strategies with the mesh's reports (a MeshBoard fed the cloud's rows, as a pull
// leaves it) as a source of their context's health: complexity demotes a model failing across the
// mesh and prefers the cheapest candidate meeting the bar for the request's bucket; cascade skips a
// failing model unless none would be left; each says why; too few reports change nothing.
import { describe, expect, test } from "bun:test";
import { MeshBoard, type ReceivedRow } from "../../src/core/mesh/board.ts";
import { requestBucket } from "../../src/core/mesh/bucket.ts";
import { HealthBoard } from "../../src/core/limits/health.ts";
import type { ModelInfo, StrategyContext } from "../../src/plugin/api.ts";
import cascade from "../../src/strategies/cascade/index.ts";
import complexity from "../../src/strategies/complexity/index.ts";
import { CATALOG, chat, fakeCatalog, routeInput } from "../strategies/fakes.ts";

const SIMPLE = requestBucket("simple", 0);

function meshContext(rows: ReceivedRow[], options: Record<string, unknown> = {}, bar = 0.9): StrategyContext {
  const board = new MeshBoard(() => bar);
  board.replace(rows);
  const health = new HealthBoard([board]);
  return { options, catalog: fakeCatalog(CATALOG), isAvailable: () => true, health, estimateTokens: () => 10 };
}

const row = (provider: string, model: string, requests: number, errors: number, bucket = SIMPLE): ReceivedRow => ({ provider, model, bucket, requests, errors });
const tiers = { tiers: { simple: "claude-haiku-4-5", moderate: "claude-sonnet-4-5", complex: "claude-opus-4-5" } };

describe("complexity with the mesh", () => {
  test("a model failing across the mesh goes last, and the reasons say so", async () => {
    const ctx = meshContext([row("anthropic", "claude-haiku-4-5", 14, 12)], tiers);
    const plan = await complexity.plan(routeInput("svc:fast", chat("hi")), ctx);
    expect(plan.candidates[0]).toBe("anthropic:claude-sonnet-4-5");
    expect(plan.candidates.at(-1)).toBe("anthropic:claude-haiku-4-5");
    expect(plan.reasons).toContain("mesh: claude-haiku-4-5 failing (12/14 errors)");
  });

  test("the cheapest candidate meeting the bar for the bucket goes first", async () => {
    const ctx = meshContext([row("openai", "gpt-5-nano", 20, 1), row("anthropic", "claude-haiku-4-5", 20, 0)], tiers);
    const plan = await complexity.plan(routeInput("svc:fast", chat("hi")), ctx);
    expect(plan.candidates[0]).toBe("openai:gpt-5-nano");
    expect(plan.reasons).toContain(`mesh: prefers gpt-5-nano, the cheapest meeting the bar for ${SIMPLE} (95% of 20)`);
  });

  test("under the bar in this bucket is not preferred; a failing model's word holds in another bucket too", async () => {
    const ctx = meshContext([row("openai", "gpt-5-nano", 20, 4), row("anthropic", "claude-haiku-4-5", 20, 15, "complex.l")], tiers);
    const plan = await complexity.plan(routeInput("svc:fast", chat("hi")), ctx);
    // gpt-5-nano meets 80% only; haiku has no reports for this bucket, so its overall failures count.
    expect(plan.candidates[0]).toBe("anthropic:claude-sonnet-4-5");
    expect(plan.reasons).toContain("mesh: gpt-5-nano failing (4/20 errors)");
    expect(plan.reasons).toContain("mesh: claude-haiku-4-5 failing (15/20 errors)");
  });

  test("fewer than 5 reports change nothing", async () => {
    const ctx = meshContext([row("anthropic", "claude-haiku-4-5", 4, 4), row("openai", "gpt-5-nano", 4, 0)], tiers);
    const plan = await complexity.plan(routeInput("svc:fast", chat("hi")), ctx);
    expect(plan.candidates[0]).toBe("anthropic:claude-haiku-4-5");
    expect(plan.reasons.some((r) => r.startsWith("mesh:"))).toBe(false);
  });
});

describe("cascade with the mesh", () => {
  const chain = { chain: ["gpt-5-nano", "gpt-5-mini", "gpt-5"] };
  const none = requestBucket(undefined, 10);

  test("a failing model is skipped, and the reasons say so", async () => {
    const plan = await cascade.plan(routeInput("svc:cascade", chat("hi")), meshContext([row("openai", "gpt-5-nano", 10, 9, none)], chain));
    expect(plan.candidates).toEqual(["openai:gpt-5-mini", "openai:gpt-5"]);
    expect(plan.reasons).toContain("mesh: gpt-5-nano failing (9/10 errors): skipped");
  });

  test("when every model fails, the chain is kept whole", async () => {
    const rows = ["gpt-5-nano", "gpt-5-mini", "gpt-5"].map((m) => row("openai", m, 10, 9, none));
    const plan = await cascade.plan(routeInput("svc:cascade", chat("hi")), meshContext(rows, chain));
    expect(plan.candidates).toEqual(["openai:gpt-5-nano", "openai:gpt-5-mini", "openai:gpt-5"]);
    expect(plan.reasons.some((r) => r.startsWith("mesh:"))).toBe(false);
  });
});

test("a higher bar makes a model fail that a lower one passes", () => {
  const model = CATALOG.find((m) => m.id === "gpt-5-nano") as ModelInfo;
  const board = new MeshBoard(() => 0.99);
  board.replace([row("openai", "gpt-5-nano", 100, 2)]);
  expect(board.sharedFacts(model, SIMPLE)).toEqual({ requests: 100, errors: 2, successRate: 0.98, meetsBar: false });
  expect(new HealthBoard([board]).shared(model)?.meetsBar).toBe(false);
});
