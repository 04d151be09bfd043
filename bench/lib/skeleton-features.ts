// What `bench/skeleton.ts --features` adds to the skeleton: the work issue 5
// switches on in every case and that every Relay answer carries, done with
// Relay's own modules and the load bench's settings (BENCH_CONFIG), and
// nothing else: the model looked up in the catalog, cooldown checked and
// recorded, the per-model rate limit, a priced budget reservation settled
// with the answer's cost, the answer's x-svc-* headers with the vendor's
// forwarded ones, and the access log line.
import type { ModelInfo } from "../../src/plugin/api.ts";
import { Catalog } from "../../src/core/catalog/catalog.ts";
import { costOf } from "../../src/core/catalog/cost.ts";
import type { Usage } from "../../src/core/ir.ts";
import type { BudgetRefusal, BudgetReservation } from "../../src/core/limits/budget.ts";
import { MemoryBudgetGuard } from "../../src/core/limits/budget-memory.ts";
import { CooldownTracker } from "../../src/core/limits/cooldown.ts";
import { MemoryRateLimiter, modelRateKey, type RateDecision } from "../../src/core/limits/rate-limit.ts";
import { createLogger } from "../../src/core/log.ts";
import { forwardedVendorHeaders } from "../../src/core/router/pipeline.ts";
import type { KvStore } from "../../src/store/types.ts";
import { BENCH_CONFIG } from "./stack.ts";

/** A request let through: its model and its budget reservation. */
export interface Admitted {
  model: ModelInfo;
  reservation: BudgetReservation;
  estimateUsd: number;
}

const refusal = (status: number, message: string): Response => Response.json({ error: { message } }, { status });

export class SkeletonFeatures {
  private readonly catalog = new Catalog();
  private readonly cooldown = new CooldownTracker();
  private readonly rate = new MemoryRateLimiter();
  private readonly budget: MemoryBudgetGuard;
  private readonly log = createLogger("info");

  constructor(store: KvStore) {
    this.budget = new MemoryBudgetGuard({ store, limits: { hourlyUsd: BENCH_CONFIG.limits.hourlyUsd, dailyUsd: BENCH_CONFIG.limits.dailyUsd } });
  }

  /** The checks before the vendor call, synchronous when Relay's are; a refusal is the answer. */
  admit(name: string, inputChars: number, maxTokens: number | undefined): Admitted | Response | Promise<Admitted | Response> {
    const model = this.catalog.resolve(name);
    if (!model) return refusal(400, "Model not found");
    if (this.cooldown.isCooledDown(model.provider)) return refusal(503, "Provider is temporarily cooled down");
    const rate = this.rate.acquire(modelRateKey(model.provider, model.id), BENCH_CONFIG.limits.rpmDefault);
    return rate instanceof Promise ? rate.then((d) => this.reserve(model, d, inputChars, maxTokens)) : this.reserve(model, rate, inputChars, maxTokens);
  }

  /** Past the rate limit: the budget reserves Relay's estimate, ~3.5 characters a token in and a typical answer out. */
  private reserve(model: ModelInfo, rate: RateDecision, inputChars: number, maxTokens: number | undefined): Admitted | Response | Promise<Admitted | Response> {
    if (!rate.allowed) return refusal(429, "rate_limit_exceeded");
    const estimateUsd = costOf(model, { inputTokens: Math.ceil(inputChars / 3.5), outputTokens: Math.min(maxTokens ?? 1024, 4096), cacheReadTokens: 0, cacheWriteTokens: 0 });
    const reserved = this.budget.reserve(estimateUsd);
    return reserved instanceof Promise ? reserved.then((r) => admitted(model, r, estimateUsd)) : admitted(model, reserved, estimateUsd);
  }

  /** The vendor answered: cooldown and budget learn it; returns the answer's cost. */
  settle(a: Admitted, usage: { prompt_tokens?: number; completion_tokens?: number } | undefined): number {
    this.cooldown.recordSuccess(a.model.provider);
    const counted: Usage = { inputTokens: usage?.prompt_tokens ?? 0, outputTokens: usage?.completion_tokens ?? 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
    const cost = costOf(a.model, counted);
    void this.budget.settle(a.reservation, cost);
    return cost;
  }

  /** The headers of an answer as Relay sends them for a direct route. */
  headers(contentType: string, id: string, a: Admitted, cost: number, start: number, vendor: Headers): Record<string, string> {
    const h: Record<string, string> = {
      "content-type": contentType,
      "x-svc-request-id": id,
      "x-svc-requested-model": a.model.id,
      "x-svc-routed-model": a.model.id,
      "x-svc-provider": a.model.provider,
      "x-svc-strategy": "fallback",
      "x-svc-fallback-used": "false",
      "x-svc-attempts": "1",
      "x-svc-estimated-cost": cost.toFixed(6),
      "x-svc-overhead-ms": (performance.now() - start).toFixed(2),
    };
    const forwarded = forwardedVendorHeaders(vendor);
    for (const name in forwarded) h[name] = forwarded[name]!;
    return h;
  }

  access(requestId: string, method: string, path: string, status: number, start: number): void {
    this.log.access({ requestId, method, path, status, ms: Math.round((performance.now() - start) * 100) / 100 });
  }
}

function admitted(model: ModelInfo, r: BudgetReservation | BudgetRefusal, estimateUsd: number): Admitted | Response {
  return r.refused ? refusal(429, "budget_exceeded") : { model, reservation: r, estimateUsd };
}
