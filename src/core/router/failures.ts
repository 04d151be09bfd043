// The errors a run ends with: when no candidate answered, from the failures its attempts recorded,
// the one that tells the client most (a vendor's own error first, then budget, key, rate, cooldown);
// and whatever else ended a call, as the core's error.
import type { ModelInfo } from "../../plugin/api.ts";
import { CoreError, type FailedAttempt } from "../errors.ts";
import type { IRError } from "../ir.ts";
import type { BudgetRefusal } from "../limits/budget.ts";
import type { Caller } from "./call.ts";
import type { RouterDeps } from "./deps.ts";
import type { Routing } from "./plan.ts";
import type { RouteFailure } from "./result.ts";
import type { Run } from "./run.ts";
import { clientInputError } from "./validate.ts";

export interface AttemptFailure {
  model: ModelInfo;
  provider: string;
  status: number;
  message: string;
  vendorError?: IRError;
  kind: "vendor" | "missing_key" | "cooled" | "rate_limited" | "rejected" | "budget";
  retryAfter?: number;
}

export const budgetExceeded = (r: BudgetRefusal): CoreError =>
  new CoreError(429, "budget_exceeded", `budget_exceeded: ${r.window} budget of $${r.limitUsd} reached (spent $${r.spentUsd.toFixed(4)})`, { retryAfter: r.retryAfterSec });

export function finalError(routing: Routing, failures: AttemptFailure[], run: Run): CoreError {
  const vendorFailures = failures.filter((f) => f.kind === "vendor");
  if (routing.plan.mode === "cascade" && vendorFailures.length === routing.candidates.length)
    return new CoreError(500, "cascade_exhausted", "All cascade models exhausted", { details: { parameter: "model", provided: run.requestedModel, expected: "a reachable model" } });
  if (vendorFailures.length) {
    const f = vendorFailures[vendorFailures.length - 1]!;
    const attempts = failures.map((a) => ({ model: a.model.id, provider: a.provider, status: a.status, message: a.message }));
    return providerError(f.status, f.message, f.vendorError, run.vendorHeaders, attempts);
  }
  const budget = failures.find((f) => f.kind === "budget");
  if (budget) return new CoreError(429, "budget_exceeded", budget.message, { retryAfter: budget.retryAfter });
  const missing = failures.find((f) => f.kind === "missing_key");
  if (missing) return new CoreError(500, "missing_api_key", missing.message);
  const limited = failures.filter((f) => f.kind === "rate_limited");
  if (limited.length && failures.every((f) => f.kind === "rate_limited" || f.kind === "cooled")) {
    const retryAfter = Math.min(...limited.map((f) => f.retryAfter ?? 60));
    return new CoreError(429, "rate_limit_exceeded", `rate_limit_exceeded: requests per minute for ${limited.map((f) => f.model.id).join(", ")} used up`, { retryAfter });
  }
  return new CoreError(503, "provider_cooled_down", "Provider is temporarily cooled down", { details: { parameter: "model", provided: run.requestedModel, expected: "a provider not in cooldown" } });
}

/** Whether the name the client asked for resolves to `model` (a strategy's own choice does not). */
export function namesModel(deps: RouterDeps, requested: string, model: ModelInfo): boolean {
  const named = deps.catalog.resolve(requested);
  return named !== undefined && named.provider === model.provider && named.id === model.id;
}

/** `attempts`: every candidate failed, these are their failures (see CoreError's extra). */
export function providerError(status: number, message: string, vendorError: IRError | undefined, vendorHeaders: Record<string, string>, attempts?: FailedAttempt[]): CoreError {
  // Faithful status for vendor answers; a transport failure (no status) is a bad gateway.
  const s = status >= 400 ? status : 502;
  return new CoreError(s, "provider_error", `Provider error: ${message}`, {
    vendorType: vendorError?.vendorType,
    retryAfter: vendorError?.retryAfter,
    headers: vendorHeaders,
    attempts,
  });
}

/**
 * Whatever ended a call, as the core's error: a refusal as it is, a client's input that could not be
 * converted (a schema too deep, say) as its 400, anything else as Relay's own fault, logged.
 */
export function coreErrorOf(deps: RouterDeps, id: string | undefined, caller: Caller, e: unknown): CoreError {
  const known = clientInputError(e);
  if (known) return known;
  deps.log.error("unhandled error", { requestId: id, surface: caller.surface, error: e });
  return new CoreError(500, "internal_error", "Internal server error");
}

export const failureOf = (deps: RouterDeps, id: string | undefined, caller: Caller, e: unknown): RouteFailure => ({
  kind: "error",
  error: coreErrorOf(deps, id, caller, e),
});
