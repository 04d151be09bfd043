// The attempts over a run's candidates: each candidate's checks (loaded, cooled down, rate, key,
// budget), its tries (one retry after a short Retry-After), fallback to the next on a retryable
// failure, and a cascade's judge, which may reject an answer for the next (stronger) candidate's.
import type { Config } from "../../config/schema.ts";
import type { ModelInfo, ProviderPlugin } from "../../plugin/api.ts";
import { costOf } from "../catalog/cost.ts";
import { costUnknownEvent } from "../catalog/unpriced.ts";
import { CoreError } from "../errors.ts";
import type { BudgetRefusal } from "../limits/budget.ts";
import { sleep } from "../limits/clock.ts";
import { classifyFailure, isUnknownModelAnswer } from "../limits/failure.ts";
import { type ModelRateLimits, modelRateLimits } from "../limits/model-rate.ts";
import type { RateDecision } from "../limits/rate-limit.ts";
import { type Answer, answerResult, pricedAnswer } from "./answer.ts";
import { keyFor } from "./client-credential.ts";
import { missingKeyError, needsKey } from "./credentials.ts";
import type { RouterDeps } from "./deps.ts";
import { type AttemptFailure, budgetExceeded, coreErrorOf, finalError, namesModel, providerError } from "./failures.ts";
import { modelNotFound } from "./plan.ts";
import type { RouteResult } from "./result.ts";
import { addUsage, type Run } from "./run.ts";
import { startStream } from "./stream-start.ts";
import { Attempt, type AttemptOutcome, attemptOne, type TryFailure } from "./vendor-call.ts";

/**
 * The candidates in turn (fallback, cascade, one retry after a short Retry-After); whatever ends the
 * run settles it. The one async frame a call holds while its vendor works (see route()); it never rejects: the
 * steps it calls are synchronous but for the vendor call, the stream's start and a Retry-After's sleep.
 */
export async function attemptAll(deps: RouterDeps, run: Run): Promise<RouteResult> {
  try {
    const loop = new Attempts(deps, run);
    const candidates = run.routing.candidates;
    for (let i = 0; i < candidates.length && !loop.accepted; i++) {
      const admitted = loop.admit(candidates[i]!);
      const attempt = admitted instanceof Promise ? await admitted : admitted;
      if (!attempt) continue;
      const unpriced = costUnknownEvent(attempt.model, run.budget !== undefined);
      if (unpriced) run.events.push(unpriced);
      for (;;) {
        let outcome = await attemptOne(deps, attempt.begin());
        if (outcome.kind === "response" && outcome.stream) {
          const started = await startStream(deps, attempt, outcome);
          if (started.kind === "stream") return started;
          outcome = started;
        }
        if (outcome.kind === "response") {
          loop.judge(attempt, outcome, i);
          break;
        }
        const wait = loop.failed(attempt, outcome.failure, i);
        if (wait === undefined) break;
        const slept = performance.now();
        await sleep(wait * 1000);
        run.waitedMs += performance.now() - slept;
      }
    }

    const answer = loop.answer();
    run.routed = answer.model;
    const body = pricedAnswer(deps, run, answer);
    // The record is committed before the caller can see the answer.
    await run.settle("ok", 200);
    return answerResult(run, answer, body);
  } catch (e) {
    const error = coreErrorOf(deps, run.call.id, run.call.caller, e);
    await run.settle(run.scope.aborted ? "cancelled" : "error", error.status, error.message);
    return { kind: "error", error, record: run.record };
  }
}

/** What the attempts have found so far: the failures, the escalations and the answers. */
class Attempts {
  private readonly config: Config;
  private readonly rates: ModelRateLimits;
  /** Made at the first failure: most runs have none. */
  private failures: AttemptFailure[] | undefined;
  private readonly maxEscalations: number;
  private escalations = 0;
  accepted: Answer | undefined;
  /** The last answer a cascade's judge rejected: if every model answers uncertainly, the strongest is still better than none. */
  private lastRejected: Answer | undefined;

  constructor(
    private readonly deps: RouterDeps,
    private readonly run: Run,
  ) {
    this.config = deps.config();
    this.rates = modelRateLimits(deps.catalog, this.config.limits);
    this.maxEscalations = run.routing.plan.maxEscalations ?? Number.POSITIVE_INFINITY;
  }

  private fail(f: AttemptFailure): undefined {
    (this.failures ??= []).push(f);
    return undefined;
  }

  /** A candidate's checks before any vendor call: loaded, not cooling down, within its rate; then keyed(). */
  admit(model: ModelInfo): Attempt | undefined | Promise<Attempt | undefined> {
    const deps = this.deps;
    const provider = deps.registry.providers.get(model.provider);
    if (!provider) return this.fail({ model, provider: model.provider, status: 500, message: `provider ${model.provider} is not loaded`, kind: "vendor" });
    if (deps.health.model(model).coolingDown)
      return this.fail({ model, provider: provider.name, status: 503, message: "Provider is temporarily cooled down", kind: "cooled" });
    const rate = this.rates.of(model);
    if (rate.limit <= 0) return this.keyed(model, provider);
    const acquired = deps.rate.acquire(rate.key, rate.limit);
    return acquired instanceof Promise ? acquired.then((d) => this.rated(model, provider, d)) : this.rated(model, provider, acquired);
  }

  private rated(model: ModelInfo, provider: ProviderPlugin, d: RateDecision): Attempt | undefined | Promise<Attempt | undefined> {
    if (!d.allowed) return this.fail({ model, provider: provider.name, status: 429, message: "rate_limit_exceeded", kind: "rate_limited", retryAfter: d.retryAfterSec });
    return this.keyed(model, provider);
  }

  /** The candidate's key; then, with a budget, the reservation moves to it (a fallback or an escalation reserves again). */
  private keyed(model: ModelInfo, provider: ProviderPlugin): Attempt | undefined | Promise<Attempt | undefined> {
    const run = this.run;
    const apiKey = keyFor(this.deps, provider, model, run.requestedModel, run.client, run.call.caller.credentials);
    if (needsKey(provider) && !apiKey) return this.fail({ model, provider: provider.name, status: 500, message: missingKeyError(provider).message, kind: "missing_key" });
    if (!run.budget || run.budget.model === model) return new Attempt(run, model, provider, apiKey);
    return run.budget.switchTo(model, run.rejectedCost).then((refused) => this.reserved(model, provider, apiKey, refused));
  }

  private reserved(model: ModelInfo, provider: ProviderPlugin, apiKey: string | undefined, refused: BudgetRefusal | undefined): Attempt | undefined {
    if (!refused) return new Attempt(this.run, model, provider, apiKey);
    const message = budgetExceeded(refused).message;
    this.run.events.push({ type: "error", model: model.id, provider: provider.name, status: 429, reason: message });
    return this.fail({ model, provider: provider.name, status: 429, message, kind: "budget", retryAfter: refused.retryAfterSec });
  }

  /** A whole answer from candidate i: accepted, or rejected by a cascade's judge for the next candidate's. */
  judge(attempt: Attempt, outcome: Extract<AttemptOutcome, { stream: false }>, i: number): void {
    const { deps, run } = this;
    const { model, provider } = attempt;
    deps.cooldown.recordSuccess(provider.name);
    run.events.push(attempt.event());
    const res = outcome.res;
    run.usage = res.usage;
    const answer: Answer = { res, model, provider, text: outcome.text };
    const routing = run.routing;
    if (routing.judge && this.escalations < this.maxEscalations && i < routing.candidates.length - 1) {
      const verdict = routing.judge(res, run.ir);
      if (!verdict.accept) {
        this.escalations++;
        run.events.push({ type: "escalation", model: model.id, provider: provider.name, reason: verdict.reason });
        run.rejectedUsage = addUsage(run.rejectedUsage, res.usage);
        run.rejectedCost += costOf(model, res.usage);
        this.lastRejected = answer;
        return;
      }
    }
    this.accepted = answer;
  }

  /**
   * A failed try of candidate i, recorded; throws when it ends the run. Returns the seconds to wait
   * before trying the same model again, or undefined to move on to the next candidate.
   */
  failed(attempt: Attempt, f: TryFailure, i: number): number | undefined {
    const { deps, run } = this;
    const { model, provider } = attempt;
    // Vendor text goes on to the client, the run log, the cooldown state and the log: without secrets.
    f.message = run.scrub(f.message);
    const cls = classifyFailure(f.networkError !== undefined ? { error: f.networkError } : { status: f.status });
    if (run.scope.aborted) throw new CoreError(499, "cancelled", "Client closed the request");
    if (cls.vendorSide && !f.limited) {
      if (deps.cooldown.recordFailure(provider.name, f.message)) deps.log.warn("provider cooled down", { provider: provider.name, reason: f.message });
    }
    run.events.push({ type: "error", model: model.id, provider: provider.name, status: f.status, reason: f.message });
    this.fail({ model, provider: provider.name, status: f.status, message: f.message, vendorError: f.vendorError, kind: "vendor", retryAfter: f.retryAfter });
    // The vendor does not know the model: the client's 400 Model not found when the client named it (a
    // typo that a provider's pattern routed), else the next candidate; a 404 never counts toward cooldown.
    const unknownModel = isUnknownModelAnswer(f, model.id);
    if (unknownModel && namesModel(deps, run.requestedModel, model)) throw modelNotFound(deps, run.requestedModel);
    if (!cls.retryable && !unknownModel) throw providerError(f.status, f.message, f.vendorError, run.vendorHeaders);
    const candidates = run.routing.candidates;
    const last = i === candidates.length - 1;
    const wait = f.retryAfter;
    if (last && !attempt.retried && wait !== undefined && wait * 1000 <= this.config.routing.retryAfterCapMs && !deps.health.model(model).coolingDown) {
      attempt.retried = true;
      return wait;
    }
    if (!last) run.events.push({ type: "fallback", model: candidates[i + 1]!.id, provider: candidates[i + 1]!.provider, reason: cls.reason });
    return undefined;
  }

  /** The answer to serve: the accepted one, else the strongest a cascade rejected; none is the run's final error. */
  answer(): Answer {
    const answer = this.accepted ?? this.lastRejected;
    if (!answer) throw finalError(this.run.routing, this.failures ?? [], this.run);
    if (answer === this.lastRejected) serveRejected(this.run, answer);
    return answer;
  }
}

/** The strongest rejected answer is served after all: its usage and cost are the answer's now, no longer a rejected one's too. */
function serveRejected(run: Run, answer: Answer): void {
  const u = answer.res.usage;
  const r = run.rejectedUsage;
  run.rejectedUsage = {
    inputTokens: r.inputTokens - u.inputTokens,
    outputTokens: r.outputTokens - u.outputTokens,
    cacheReadTokens: r.cacheReadTokens - u.cacheReadTokens,
    cacheWriteTokens: r.cacheWriteTokens - u.cacheWriteTokens,
  };
  run.rejectedCost -= costOf(answer.model, u);
}
