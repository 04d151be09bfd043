// A request's run: what is known about it as the attempts go, closed once by settle(), which frees
// what the run holds and logs it as a RunRecord.
import type { ModelInfo } from "../../plugin/api.ts";
import { costOf } from "../catalog/cost.ts";
import type { InFlight } from "../control.ts";
import { type ChatRequest, type Usage, emptyUsage } from "../ir.ts";
import type { RunBudget } from "../limits/budget-run.ts";
import type { RunEvent, RunRecord } from "../run-record.ts";
import { scrubSecrets } from "../secrets/known.ts";
import { SecretValues } from "../secrets/scrub.ts";
import type { Call } from "./call.ts";
import type { ClientCredential } from "./client-credential.ts";
import type { RouterDeps } from "./deps.ts";
import type { Routing } from "./plan.ts";
import { RequestScope } from "./scope.ts";

/** Everything known about the run so far; becomes the RunRecord. */
export class Run {
  events: RunEvent[] = [];
  attempts = 0;
  routed?: ModelInfo;
  usage: Usage = emptyUsage();
  /** Set once the final usage is priced, so the run is priced once. */
  costUsd?: number;
  /** Answers a cascade rejected were still paid for: their usage and cost add to the run's. */
  rejectedUsage: Usage = emptyUsage();
  rejectedCost = 0;
  /**
   * Time spent waiting on others: the vendor (its answer, each chunk of its stream), a client
   * taking a stream, a vendor's Retry-After. x-svc-overhead-ms is the rest.
   */
  waitedMs = 0;
  /**
   * The overhead the run record holds, fixed when the record is made: a stream that arrived whole
   * builds its headers after the record is acknowledged, and that wait is not Relay's overhead
   * either (an unstreamed answer builds its headers before it).
   */
  loggedOverheadMs?: number;
  /** A typical answer's cost and its model, for a stream's x-svc-estimated-cost header. */
  estimate?: { model: ModelInfo; usd: number };
  dropped: string[] = [];
  vendorHeaders: Record<string, string> = {};
  /** Set by begin(), with the session slot and budget reservation that settle() frees. */
  routing!: Routing;
  scope!: RequestScope;
  private tracked!: InFlight;
  /** Set when a budget is: the run's reservations (see budget-run.ts). */
  budget: RunBudget | undefined;
  private telemetry = false;
  /** Set by settle(): the run as logged. */
  record: RunRecord | undefined;
  /** A stream's wait for its record (ended()), resolved by settle(). */
  private onRecord: ((r: RunRecord) => void) | undefined;

  constructor(
    private readonly deps: RouterDeps,
    readonly call: Call,
    readonly ir: ChatRequest,
    readonly requestedModel: string,
    readonly sessionKey: string | undefined,
    readonly metadata: Record<string, unknown>,
    /** The client's own credential for the provider that declared it (Anthropic's, on /v1/messages). */
    readonly client: ClientCredential | undefined,
  ) {}

  /** The attempts start: the run takes a session slot, and its client or an administrator can end it. */
  begin(routing: Routing, budget: RunBudget | undefined): this {
    this.routing = routing;
    this.budget = budget;
    this.telemetry = this.deps.config().telemetry.enabled;
    this.scope = new RequestScope(this.call.signal);
    this.tracked = this.deps.control.track(this.sessionKey, this.scope);
    return this;
  }

  /** The caller's own keys (Caller.credentials) as scrubbed values, made at the first scrub: most runs have none. */
  private ownKeys: SecretValues | undefined;

  /** Vendor text without any secret, this request's own credential and its caller's keys included (src/core/secrets). */
  scrub(text: string): string {
    const own = this.call.caller.credentials;
    if (own) text = (this.ownKeys ??= new SecretValues(Object.values(own))).scrub(text);
    return scrubSecrets(text, this.client?.key);
  }

  /**
   * Called once the vendor call is under way: the store readies what writing the record needs (the
   * first run after a start has it start its writer thread, ~5 ms) while the vendor works. Started
   * before the call, that thread's start delayed the call itself.
   */
  prepareRecord(): void {
    if (this.telemetry) this.deps.writer.prepare();
  }

  /**
   * Closes the run: frees the session slot, settles the budget, logs the record. Resolves once the
   * record is committed (or the writer's wait bound passes); later calls do nothing.
   */
  settle(outcome: RunRecord["outcome"], status: number, error?: string): Promise<void> {
    if (this.record) return Promise.resolve();
    const deps = this.deps;
    deps.control.untrack(this.tracked);
    this.scope.close();
    const model = this.routed;
    const spent = this.costUsd ?? (model ? costOf(model, this.usage) : 0) + this.rejectedCost;
    const cost = this.budget ? this.budget.close(spent, this.usage, outcome === "ok", (e) => deps.log.error("budget settle failed", { error: e })) : spent;
    const record = (this.record = toRecord(this, status, outcome, cost, error === undefined ? undefined : this.scrub(error)));
    this.loggedOverheadMs = record.overheadMs;
    this.onRecord?.(record);
    deps.mesh?.tap(record, this.ir);
    return this.telemetry ? deps.writer.write(record) : Promise.resolve();
  }

  /** The record once the run settles (a stream's, at its end). */
  ended(): Promise<RunRecord> {
    if (this.record) return Promise.resolve(this.record);
    return new Promise((resolve) => (this.onRecord = resolve));
  }
}

export const addUsage = (a: Usage, b: Usage): Usage => ({
  inputTokens: a.inputTokens + b.inputTokens,
  outputTokens: a.outputTokens + b.outputTokens,
  cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
  cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
});

/** The time since the request arrived that was not spent waiting on others. */
export const overheadMs = (run: Run) => Math.max(0, performance.now() - run.call.start - run.waitedMs);
/** Durations are logged to 0.01 ms: a local answer often takes under a millisecond, which whole ms would log as 0. */
export const hundredths = (ms: number): number => Math.round(ms * 100) / 100;

function toRecord(run: Run, status: number, outcome: RunRecord["outcome"], cost: number, error?: string): RunRecord {
  const { call, routing } = run;
  const usage = addUsage(run.usage, run.rejectedUsage);
  return {
    id: call.id,
    ts: call.at,
    latencyMs: hundredths(performance.now() - call.start),
    requestedModel: run.requestedModel,
    routedModel: run.routed?.id ?? "",
    provider: run.routed?.provider ?? "",
    strategy: routing.strategy,
    tier: routing.plan.tier,
    status,
    outcome,
    stream: run.ir.stream,
    clientFormat: call.format,
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    cacheReadTokens: usage.cacheReadTokens,
    cacheWriteTokens: usage.cacheWriteTokens,
    costUsd: cost,
    fallbackUsed: run.events.some((e) => e.type === "fallback"),
    attempts: run.attempts,
    events: run.events,
    reasons: routing.plan.reasons,
    metadata: run.metadata,
    sessionKey: run.sessionKey,
    error,
    overheadMs: hundredths(overheadMs(run)),
    teamId: call.caller.team,
  };
}
