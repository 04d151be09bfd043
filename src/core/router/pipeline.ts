// The request path shared by /v1/messages and /v1/chat/completions:
// validate → plan (strategy) → guards → attempts over the candidates
// (fallback / cascade) → relay the answer in the client's format → log the run.
import type { ModelInfo, ProviderPlugin, WireFormat } from "../../plugin/api.ts";
import { HttpError } from "../errors.ts";
import type { RunEvent, RunRecord } from "../../store/types.ts";
import { costOf } from "../catalog/cost.ts";
import type { InFlight } from "../control.ts";
import { codecFor } from "../formats/index.ts";
import type { Codec } from "../formats/types.ts";
import { headerValue } from "../header-value.ts";
import { stringifyClient } from "../client-json.ts";
import { type ChatRequest, type ChatResponse, type IRError, type Usage, emptyUsage } from "../ir.ts";
import type { BudgetRefusal } from "../limits/budget.ts";
import { RunBudget } from "../limits/budget-run.ts";
import { spliceMaxTokens } from "../limits/budget-splice.ts";
import { sleep } from "../limits/clock.ts";
import { classifyFailure, describeFailureDetail, describeVendorFailure, parseRetryAfter } from "../limits/failure.ts";
import { modelRateLimits } from "../limits/model-rate.ts";
import { readCapped } from "../read-capped.ts";
import { approxTextTokens, estimateTokens } from "../tokens.ts";
import { admitClientCredential, keyFor, type ClientCredential } from "./client-credential.ts";
import { missingKeyError, needsKey, providerBaseUrl } from "./credentials.ts";
import type { RouterDeps } from "./deps.ts";
import { VIA_HEADER } from "./loop-guard.ts";
import { planRoute, type Routing } from "./plan.ts";
import { RequestScope } from "./scope.ts";
import { scrubSecrets } from "../secrets/known.ts";
import { primeStream, type StreamOutcome } from "./stream-relay.ts";
import { UpstreamCall, type UpstreamHandle } from "./upstream.ts";
import { checkWireNames, clientInputError } from "./validate.ts";

export interface ChatCall {
  request: Request;
  requestId: string;
  /** performance.now() when the request arrived. */
  start: number;
  /** Date.now() when the request arrived (the time in its id): the run's timestamp. */
  at: number;
  clientFormat: Extract<WireFormat, "openai" | "anthropic">;
  body: Record<string, unknown>;
  rawBody: string;
}

/** Vendor headers worth surfacing to the client (rate limits, vendor request ids). */
const FORWARDED_HEADER = /^(x-ratelimit-|anthropic-ratelimit-|retry-after$|request-id$|x-request-id$)/;
const MAX_VENDOR_BODY = 64 * 1024 * 1024;

export function validateChatBody(body: Record<string, unknown>): void {
  if (typeof body.model !== "string" || body.model.trim() === "")
    throw new HttpError(400, "invalid_request", "Missing model in request", { details: { parameter: "model", provided: body.model, expected: "string" } });
  if (!Array.isArray(body.messages))
    throw new HttpError(400, "invalid_request", "Missing or invalid messages array in request", {
      details: { parameter: "messages", provided: typeof body.messages, expected: "array" },
    });
  checkWireNames(body);
}

export const sessionKeyOf = (h: Headers): string | undefined =>
  h.get("x-svc-session") ?? h.get("x-claude-code-session-id") ?? undefined;

function parseMetadata(h: Headers): Record<string, unknown> {
  const raw = h.get("x-svc-metadata");
  if (!raw) return {};
  try {
    const v = JSON.parse(raw);
    if (v && typeof v === "object" && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    // fall through
  }
  throw new HttpError(400, "invalid_request", "x-svc-metadata must be a JSON object", { details: { parameter: "x-svc-metadata", expected: "JSON object" } });
}

interface AttemptFailure {
  model: ModelInfo;
  provider: string;
  status: number;
  message: string;
  vendorError?: IRError;
  kind: "vendor" | "missing_key" | "cooled" | "rate_limited" | "rejected" | "budget";
  retryAfter?: number;
}

/** A vendor's answer that arrived whole and can be given to the client. */
interface Answer {
  res: ChatResponse;
  model: ModelInfo;
  provider: ProviderPlugin;
  /** The vendor's own text, when it can go to the client as it is. */
  text?: string;
}

/** Everything known about the run so far; becomes the RunRecord. */
class Run {
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
  private settled = false;

  constructor(
    private readonly deps: RouterDeps,
    readonly call: ChatCall,
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
    this.scope = new RequestScope(this.call.request.signal);
    this.tracked = this.deps.control.track(this.sessionKey, this.scope);
    return this;
  }

  /** Vendor text without any secret, this request's own credential included (src/core/secrets). */
  scrub(text: string): string {
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
    if (this.settled) return Promise.resolve();
    this.settled = true;
    const deps = this.deps;
    deps.control.untrack(this.tracked);
    this.scope.close();
    const model = this.routed;
    const spent = this.costUsd ?? (model ? costOf(model, this.usage) : 0) + this.rejectedCost;
    const cost = this.budget ? this.budget.close(spent, this.usage, outcome === "ok", (e) => deps.log.error("budget settle failed", { error: e })) : spent;
    if (!this.telemetry) return Promise.resolve();
    const record = toRecord(this, status, outcome, cost, error === undefined ? undefined : this.scrub(error));
    this.loggedOverheadMs = record.overheadMs;
    return deps.writer.write(record);
  }
}

/**
 * validate → plan → reserve → attempts. Neither this nor the steps before the attempts is an async
 * function: a request in flight holds attemptAll's async frame alone here, not one per layer (each
 * frame, its scope and its promise are live cells that every young collection visits). A refusal
 * before any vendor call rejects the promise.
 */
export function handleChat(deps: RouterDeps, call: ChatCall): Promise<Response> {
  try {
    const run = admit(deps, call);
    const planned = planRoute(deps, {
      request: run.ir,
      requestedModel: run.requestedModel,
      clientFormat: call.clientFormat,
      headers: call.request.headers,
      anthropicOnly: call.clientFormat === "anthropic",
      clientCredentialFor: run.client?.owner.name,
    });
    return planned instanceof Promise ? planned.then((routing) => reserve(deps, run, routing)) : reserve(deps, run, planned);
  } catch (e) {
    return Promise.reject(e);
  }
}

/** The checks that need no plan: body, session, metadata, the request's decoding, the client's own credential. */
function admit(deps: RouterDeps, call: ChatCall): Run {
  const headers = call.request.headers;
  if (deps.loop.looped(headers)) throw deps.loop.refuse(call.request.url, call.clientFormat, deps.registry.providers.values(), deps.config(), deps.env);
  validateChatBody(call.body);
  const requestedModel = call.body.model as string;
  const sessionKey = sessionKeyOf(headers);
  if (deps.control.isRefused(sessionKey))
    throw new HttpError(403, "session_killed", "This session was ended by an administrator (POST /control/enable resumes)");
  const metadata = parseMetadata(headers);

  let ir: ChatRequest;
  try {
    ir = codecFor(call.clientFormat).decodeRequest(call.body);
  } catch (e) {
    throw clientInputError(e) ?? e;
  }

  const client = admitClientCredential(deps, call.clientFormat, headers);
  return new Run(deps, call, ir, requestedModel, sessionKey, metadata, client);
}

/** When budgets are set, reserves for the first candidate (see budget-run.ts), then runs the attempts. */
function reserve(deps: RouterDeps, run: Run, routing: Routing): Promise<Response> {
  const limits = deps.config().limits;
  if (limits.hourlyUsd <= 0 && limits.dailyUsd <= 0) return attemptAll(deps, run.begin(routing, undefined));
  const budget = new RunBudget(deps.budget, run.ir, run.events);
  const refused = budget.reserveFor(routing.candidates[0]!);
  return refused instanceof Promise ? refused.then((r) => attemptReserved(deps, run, routing, budget, r)) : attemptReserved(deps, run, routing, budget, refused);
}

function attemptReserved(deps: RouterDeps, run: Run, routing: Routing, budget: RunBudget, refused: BudgetRefusal | undefined): Promise<Response> {
  if (refused) throw budgetExceeded(refused);
  return attemptAll(deps, run.begin(routing, budget));
}

const budgetExceeded = (r: BudgetRefusal): HttpError =>
  new HttpError(429, "budget_exceeded", `budget_exceeded: ${r.window} budget of $${r.limitUsd} reached (spent $${r.spentUsd.toFixed(4)})`, { retryAfter: r.retryAfterSec });

function estimateCost(run: Run, model: ModelInfo, ir: ChatRequest): number {
  if (run.estimate?.model === model) return run.estimate.usd;
  // A typical answer, not the (often huge) max_tokens ceiling a budget reserves (budget-run.ts).
  // Input is the 3.5-characters-per-token approximation for every vendor: it errs high, and a BPE
  // count would cost ~6 µs per request plus 64 MB of tables for a figure that is settled anyway.
  const output = Math.min(ir.maxTokens ?? 1024, 4096);
  const usd = costOf(model, { inputTokens: estimateTokens(ir, approxTextTokens), outputTokens: output, cacheReadTokens: 0, cacheWriteTokens: 0 });
  run.estimate = { model, usd };
  return usd;
}

/** The candidates in turn (fallback, cascade, one retry after a short Retry-After); whatever ends the run settles it. */
async function attemptAll(deps: RouterDeps, run: Run): Promise<Response> {
  try {
    const { call, ir, routing, scope } = run;
    const config = deps.config();
    const rates = modelRateLimits(deps.catalog, config.limits);
    const failures: AttemptFailure[] = [];
    const maxEscalations = routing.plan.maxEscalations ?? Number.POSITIVE_INFINITY;
    let escalations = 0;
    let accepted: Answer | undefined;
    // The last answer a cascade's judge rejected: if every model answers uncertainly, the strongest is still better than none.
    let lastRejected: Answer | undefined;

    candidates: for (let i = 0; i < routing.candidates.length; i++) {
      const model = routing.candidates[i]!;
      const provider = deps.registry.providers.get(model.provider);
      if (!provider) {
        failures.push({ model, provider: model.provider, status: 500, message: `provider ${model.provider} is not loaded`, kind: "vendor" });
        continue;
      }
      if (deps.health.model(model).coolingDown) {
        failures.push({ model, provider: provider.name, status: 503, message: "Provider is temporarily cooled down", kind: "cooled" });
        continue;
      }
      const rate = rates.of(model);
      if (rate.limit > 0) {
        const acquired = deps.rate.acquire(rate.key, rate.limit);
        const d = acquired instanceof Promise ? await acquired : acquired;
        if (!d.allowed) {
          failures.push({ model, provider: provider.name, status: 429, message: "rate_limit_exceeded", kind: "rate_limited", retryAfter: d.retryAfterSec });
          continue;
        }
      }
      const apiKey = keyFor(deps, provider, model, run.requestedModel, run.client);
      if (needsKey(provider) && !apiKey) {
        failures.push({ model, provider: provider.name, status: 500, message: missingKeyError(provider).message, kind: "missing_key" });
        continue;
      }
      // The reservation follows the candidate attempted: a fallback or an escalation reserves again.
      if (run.budget && run.budget.model !== model) {
        const refused = await run.budget.switchTo(model, run.rejectedCost);
        if (refused) {
          const message = budgetExceeded(refused).message;
          run.events.push({ type: "error", model: model.id, provider: provider.name, status: 429, reason: message });
          failures.push({ model, provider: provider.name, status: 429, message, kind: "budget", retryAfter: refused.retryAfterSec });
          continue;
        }
      }

      let retriedSame = false;
      for (;;) {
        run.attempts++;
        run.routed = model;
        const attemptStart = performance.now();
        const ac = scope.attempt();
        let outcome = await attemptOne(deps, call, ir, model, provider, apiKey, run, ac);
        if (outcome.kind === "response" && outcome.stream) {
          const started = await startStream(deps, run, model, provider, outcome, ac.signal, attemptStart);
          if (started instanceof Response) return started;
          outcome = started;
        }
        if (outcome.kind === "response" && !outcome.stream) {
          deps.cooldown.recordSuccess(provider.name);
          run.events.push(attemptEvent(model, provider, attemptStart));
          const res = outcome.res;
          run.usage = res.usage;
          const answer: Answer = { res, model, provider, text: outcome.text };
          if (routing.judge && escalations < maxEscalations && i < routing.candidates.length - 1) {
            const verdict = routing.judge(res, ir);
            if (!verdict.accept) {
              escalations++;
              run.events.push({ type: "escalation", model: model.id, provider: provider.name, reason: verdict.reason });
              run.rejectedUsage = addUsage(run.rejectedUsage, res.usage);
              run.rejectedCost += costOf(model, res.usage);
              lastRejected = answer;
              break;
            }
          }
          accepted = answer;
          break candidates;
        }
        // A failure: decide between retrying the same model, moving on, or giving up.
        const f = (outcome as Extract<AttemptOutcome, { kind: "failure" }>).failure;
        // Vendor text goes on to the client, the run log, the cooldown state and the log: without secrets.
        f.message = run.scrub(f.message);
        const cls = classifyFailure(f.networkError !== undefined ? { error: f.networkError } : { status: f.status });
        if (scope.aborted) throw new HttpError(499, "cancelled", "Client closed the request");
        if (cls.vendorSide && !f.limited) {
          if (deps.cooldown.recordFailure(provider.name, f.message)) deps.log.warn("provider cooled down", { provider: provider.name, reason: f.message });
        }
        run.events.push({ type: "error", model: model.id, provider: provider.name, status: f.status, reason: f.message });
        failures.push({ model, provider: provider.name, status: f.status, message: f.message, vendorError: f.vendorError, kind: "vendor", retryAfter: f.retryAfter });
        if (!cls.retryable) throw vendorHttpError(f.status, f.message, f.vendorError, run.vendorHeaders);
        const last = i === routing.candidates.length - 1;
        const wait = f.retryAfter;
        if (last && !retriedSame && wait !== undefined && wait * 1000 <= config.routing.retryAfterCapMs && !deps.health.model(model).coolingDown) {
          retriedSame = true;
          const slept = performance.now();
          await sleep(wait * 1000);
          run.waitedMs += performance.now() - slept;
          continue;
        }
        if (!last) run.events.push({ type: "fallback", model: routing.candidates[i + 1]!.id, provider: routing.candidates[i + 1]!.provider, reason: cls.reason });
        break;
      }
    }

    const answer = accepted ?? lastRejected;
    if (!answer) throw finalError(routing, failures, run);
    if (answer === lastRejected) serveRejected(run, answer);
    run.routed = answer.model;
    const { body, headers } = jsonAnswer(deps, run, answer);
    // Built before the run is logged: if building it fails, the run records the error the client gets.
    const response = new Response(body, { status: 200, headers });
    // The record is committed before the client can see the answer complete.
    await run.settle("ok", 200);
    return response;
  } catch (e) {
    // A client's input that could not be converted (a schema too deep, say) is its 400, logged as such.
    const err = clientInputError(e) ?? e;
    const status = err instanceof HttpError ? err.status : 500;
    await run.settle(run.scope.aborted ? "cancelled" : "error", status, (err as Error).message);
    throw err;
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

/** A successful vendor call (failures are logged as `error` events). */
const attemptEvent = (model: ModelInfo, provider: ProviderPlugin, start: number): RunEvent => ({
  type: "attempt",
  model: model.id,
  provider: provider.name,
  status: 200,
  latencyMs: hundredths(performance.now() - start),
});

function finalError(routing: Routing, failures: AttemptFailure[], run: Run): HttpError {
  const vendorFailures = failures.filter((f) => f.kind === "vendor");
  if (routing.plan.mode === "cascade" && vendorFailures.length === routing.candidates.length)
    return new HttpError(500, "cascade_exhausted", "All cascade models exhausted", { details: { parameter: "model", provided: run.requestedModel, expected: "a reachable model" } });
  if (vendorFailures.length) {
    const f = vendorFailures[vendorFailures.length - 1]!;
    return vendorHttpError(f.status, f.message, f.vendorError, run.vendorHeaders);
  }
  const budget = failures.find((f) => f.kind === "budget");
  if (budget) return new HttpError(429, "budget_exceeded", budget.message, { retryAfter: budget.retryAfter });
  const missing = failures.find((f) => f.kind === "missing_key");
  if (missing) return new HttpError(500, "missing_api_key", missing.message);
  const limited = failures.filter((f) => f.kind === "rate_limited");
  if (limited.length && failures.every((f) => f.kind === "rate_limited" || f.kind === "cooled")) {
    const retryAfter = Math.min(...limited.map((f) => f.retryAfter ?? 60));
    return new HttpError(429, "rate_limit_exceeded", `rate_limit_exceeded: requests per minute for ${limited.map((f) => f.model.id).join(", ")} used up`, { retryAfter });
  }
  return new HttpError(503, "provider_cooled_down", "Provider is temporarily cooled down", { details: { parameter: "model", provided: run.requestedModel, expected: "a provider not in cooldown" } });
}

function vendorHttpError(status: number, message: string, vendorError: IRError | undefined, vendorHeaders: Record<string, string>): HttpError {
  // Faithful status for vendor answers; a transport failure (no status) is a bad gateway.
  const s = status >= 400 ? status : 502;
  return new HttpError(s, "provider_error", `Provider error: ${message}`, {
    vendorType: vendorError?.vendorType,
    retryAfter: vendorError?.retryAfter,
    headers: vendorHeaders,
  });
}

type AttemptOutcome =
  | { kind: "response"; stream: false; res: ChatResponse; text?: string; passthrough: boolean }
  | { kind: "response"; stream: true; body: ReadableStream<Uint8Array>; handle: UpstreamHandle; passthrough: boolean; vendor: Codec }
  | {
      kind: "failure";
      /** `limited`: ended by Relay's own stream limits, not the vendor's failure (no cooldown). */
      failure: { status: number; message: string; vendorError?: IRError; retryAfter?: number; networkError?: unknown; limited?: boolean };
    };

/** Build the vendor body: the client's own bytes when formats match and nothing must change. */
function vendorBody(call: ChatCall, ir: ChatRequest, model: ModelInfo, provider: ProviderPlugin, vendor: Codec, run: Run, ctxArgs: Parameters<ProviderPlugin["request"]>[0]): { body: string; passthrough: boolean } {
  const sameFormat = call.clientFormat === provider.format;
  // OpenAI streams carry usage only when asked; without it the run could not be costed.
  const needsUsageInjection = provider.format === "openai" && ir.stream && !ir.includeUsage;
  // A budget's cap on max_tokens is the one other change a passthrough body may get (budget-splice.ts).
  const cap = run.budget?.cap;
  if (sameFormat && !provider.adaptBody && !needsUsageInjection) {
    const raw = call.body.model === model.id ? call.rawBody : spliceModel(call.rawBody, call.body.model as string, model.id);
    const spliced = raw === undefined || cap === undefined ? raw : spliceMaxTokens(raw, call.body, call.clientFormat, cap);
    if (spliced !== undefined) return { body: spliced, passthrough: true };
  }
  // Unmapped client parameters only mean something to a vendor of the same format.
  const extra = sameFormat ? ir.extra : undefined;
  const maxTokens = cap ?? ir.maxTokens;
  const encoded = vendor.encodeRequest({ ...ir, extra, maxTokens, model: model.id, includeUsage: ir.stream ? true : ir.includeUsage }, {
    model: model.id,
    defaultMaxTokens: Math.min(model.maxOutput ?? 4096, 16_384),
  });
  run.dropped = sameFormat ? encoded.dropped : [...Object.keys(ir.extra ?? {}), ...encoded.dropped];
  let body = encoded.body;
  if (provider.adaptBody) body = provider.adaptBody(body, ctxArgs);
  return { body: stringifyClient(body, "body"), passthrough: sameFormat && !needsUsageInjection };
}

/** Replace the model value without re-serialising the body; undefined when ambiguous. */
export function spliceModel(raw: string, from: string, to: string): string | undefined {
  const value = JSON.stringify(from);
  let found = -1;
  let end = -1;
  for (let at = raw.indexOf('"model"'); at !== -1; at = raw.indexOf('"model"', at + 7)) {
    let i = at + 7;
    while (raw.charCodeAt(i) <= 32) i++;
    if (raw[i] !== ":") continue;
    i++;
    while (raw.charCodeAt(i) <= 32) i++;
    if (!raw.startsWith(value, i)) continue;
    // Two `"model": <same value>` pairs (e.g. one nested in a message) make the top-level one ambiguous.
    if (found !== -1) return undefined;
    found = at;
    end = i + value.length;
  }
  return found === -1 ? undefined : `${raw.slice(0, found)}"model":${JSON.stringify(to)}${raw.slice(end)}`;
}

async function attemptOne(
  deps: RouterDeps,
  call: ChatCall,
  ir: ChatRequest,
  model: ModelInfo,
  provider: ProviderPlugin,
  apiKey: string | undefined,
  run: Run,
  ac: AbortController,
): Promise<AttemptOutcome> {
  const config = deps.config();
  const vendor = codecFor(provider.format);
  const ctx = { model: model.id, stream: ir.stream, baseUrl: providerBaseUrl(provider, config, deps.env), apiKey, clientHeaders: call.request.headers };
  const { body, passthrough } = vendorBody(call, ir, model, provider, vendor, run, ctx);
  const { url, headers } = provider.request(ctx);
  headers[VIA_HEADER] = deps.loop.outgoing(call.request.headers);
  const t0 = performance.now();
  const handle = new UpstreamCall(ac, config.server.upstreamTimeoutMs);
  let res: Response;
  try {
    const sent = handle.send({ url, headers, body });
    run.prepareRecord();
    res = await sent;
  } catch (e) {
    run.waitedMs += performance.now() - t0;
    const error = handle.failed(e);
    return { kind: "failure", failure: { status: 0, message: networkFailure(deps, provider, error), networkError: error } };
  }
  collectVendorHeaders(res.headers, run);
  if (res.status >= 400 || res.status < 200) {
    const text = await readCapped(res, 1024 * 1024).catch(() => "");
    handle.done();
    run.waitedMs += performance.now() - t0;
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // keep the raw text
    }
    const vendorError = vendor.decodeError(res.status, parsed, res.headers);
    if (res.status === 508 && deps.loop.cameBack(res.headers)) throw new HttpError(508, "loop_detected", vendorError.message);
    const retryAfter = parseRetryAfter(res.headers, Date.now(), 3600) ?? vendorError.retryAfter;
    return { kind: "failure", failure: { status: res.status, message: vendorError.message, vendorError, retryAfter } };
  }
  if (ir.stream) {
    if (!res.body) {
      handle.done();
      return { kind: "failure", failure: { status: 502, message: "vendor sent an empty stream" } };
    }
    handle.done(); // the stream relay's idle and duration timers take over
    run.waitedMs += performance.now() - t0;
    return { kind: "response", stream: true, body: res.body, handle, passthrough, vendor };
  }
  let text: string;
  try {
    text = await readCapped(res, MAX_VENDOR_BODY);
  } catch (e) {
    handle.done();
    run.waitedMs += performance.now() - t0;
    return { kind: "failure", failure: { status: 502, message: `${networkFailure(deps, provider, e)} (answer cut off)`, networkError: e } };
  }
  handle.done();
  run.waitedMs += performance.now() - t0;
  let decoded: ChatResponse;
  try {
    decoded = vendor.decodeResponse(JSON.parse(text));
  } catch (e) {
    return { kind: "failure", failure: { status: 502, message: `vendor sent a malformed response: ${(e as Error).message}` } };
  }
  return { kind: "response", stream: false, res: decoded, text: passthrough ? text : undefined, passthrough };
}

/** The client's words for a failed vendor call (provider and cause, never its URL); the runtime's own detail goes to the log. */
function networkFailure(deps: RouterDeps, provider: ProviderPlugin, e: unknown): string {
  deps.log.debug("vendor call failed", { provider: provider.name, detail: describeFailureDetail(e) });
  return describeVendorFailure(provider.name, e);
}

function collectVendorHeaders(h: Headers, run: Run): void {
  run.vendorHeaders = forwardedVendorHeaders(h);
}

/** The vendor's headers an answer passes on (FORWARDED_HEADER). */
export function forwardedVendorHeaders(h: Headers): Record<string, string> {
  const kept: Record<string, string> = {};
  h.forEach(keepForwarded, kept);
  return kept;
}

function keepForwarded(this: Record<string, string>, value: string, key: string): void {
  if (FORWARDED_HEADER.test(key)) this[key] = value;
}

/**
 * The answer's headers: its content type, then the x-svc-* routing headers and the forwarded vendor ones, in one object.
 * Every value made of client or plugin text goes through headerValue (percent-encoded beyond printable ASCII).
 */
function answerHeaders(contentType: string, run: Run, model: ModelInfo, provider: ProviderPlugin, cost: number): Record<string, string> {
  const routing = run.routing;
  const h: Record<string, string> = {
    "content-type": contentType,
    "x-svc-request-id": run.call.requestId,
    "x-svc-requested-model": headerValue(run.requestedModel),
    "x-svc-routed-model": headerValue(model.id),
    "x-svc-provider": headerValue(provider.name),
    "x-svc-strategy": headerValue(routing.strategy),
    "x-svc-fallback-used": String(run.events.some((e) => e.type === "fallback")),
    "x-svc-attempts": String(run.attempts),
    "x-svc-estimated-cost": cost.toFixed(6),
    "x-svc-overhead-ms": overheadHeader(run),
  };
  if (routing.plan.tier) h["x-svc-complexity-tier"] = headerValue(routing.plan.tier);
  if (routing.plan.reasons.length) h["x-svc-routing-reasons"] = headerValue(routing.plan.reasons.join("; "));
  if (run.dropped.length) h["x-svc-dropped-params"] = headerValue(run.dropped.join(","));
  if (run.budget?.cap !== undefined) h["x-svc-max-tokens-capped"] = String(run.budget.cap);
  // Vendor headers (rate limits, request ids) never share a name with ours.
  for (const name in run.vendorHeaders) h[name] = run.vendorHeaders[name]!;
  return h;
}

const overheadMs = (run: Run) => Math.max(0, performance.now() - run.call.start - run.waitedMs);
const overheadHeader = (run: Run): string => (run.loggedOverheadMs ?? overheadMs(run)).toFixed(2);
/** Durations are logged to 0.01 ms: a local answer often takes under a millisecond, which whole ms would log as 0. */
const hundredths = (ms: number): number => Math.round(ms * 100) / 100;

function warnOnMismatch(deps: RouterDeps, run: Run, model: ModelInfo, reported: string | undefined): void {
  if (!reported || reported.startsWith(model.id) || model.id.startsWith(reported)) return;
  run.events.push({ type: "mismatch", model: reported, provider: model.provider, reason: `asked ${model.id}` });
  deps.log.warn("model mismatch", { requestId: run.call.requestId, routedModel: model.id, responseModel: reported });
}

/** An answer that arrived whole, priced, in the client's format, with its headers. */
function jsonAnswer(deps: RouterDeps, run: Run, answer: Answer): { body: string; headers: Record<string, string> } {
  const { res, model, provider } = answer;
  run.usage = res.usage;
  warnOnMismatch(deps, run, model, res.model);
  const cost = (run.costUsd = costOf(model, res.usage) + run.rejectedCost);
  const body = answer.text ?? JSON.stringify(codecFor(run.call.clientFormat).encodeResponse(res, { model: res.model || model.id }));
  return { body, headers: answerHeaders("application/json", run, model, provider, cost) };
}

/** Prime the vendor stream; a stream that fails before its first byte becomes a failed attempt. */
async function startStream(
  deps: RouterDeps,
  run: Run,
  model: ModelInfo,
  provider: ProviderPlugin,
  outcome: Extract<AttemptOutcome, { stream: true }>,
  signal: AbortSignal,
  attemptStart: number,
): Promise<Response | Extract<AttemptOutcome, { kind: "failure" }>> {
  const config = deps.config();
  const call = run.call;
  const client = codecFor(call.clientFormat);
  const streamOptions = call.body.stream_options as { include_usage?: unknown } | undefined;
  // Built before priming: a stream that arrives whole is logged while priming, and an answer
  // whose headers cannot be built must be logged as the error the client gets, not as served.
  const headers = streamHeaders(run, model, provider, client.streamContentType, outcome);
  const primed = await primeStream({
    body: outcome.body,
    vendor: outcome.vendor,
    client,
    passthrough: outcome.passthrough,
    clientModel: model.id,
    includeUsage: Boolean(streamOptions?.include_usage),
    idleTimeoutMs: config.server.streamIdleTimeoutMs,
    limits: config.server,
    guard: run.budget?.streamGuard(),
    scrubber: run,
    signal,
    abort: (reason) => outcome.handle.abort(reason),
    onWait: (ms) => void (run.waitedMs += ms),
    // Before onEnd: a whole answer's run is logged while priming.
    onStart: () => {
      deps.cooldown.recordSuccess(provider.name);
      run.events.push(attemptEvent(model, provider, attemptStart));
    },
    onEnd: (o: StreamOutcome) => {
      outcome.handle.done();
      if (o.error) o.error = run.scrub(o.error);
      run.usage = o.usage;
      warnOnMismatch(deps, run, model, o.model);
      if (o.outcome === "error" && o.error) {
        run.events.push({ type: "error", model: model.id, provider: provider.name, reason: o.error });
        if (!o.limited && deps.cooldown.recordFailure(provider.name, o.error)) deps.log.warn("provider cooled down", { provider: provider.name, reason: o.error });
      }
      return run.settle(o.outcome, 200, o.error);
    },
  });
  if (!primed.ok) {
    outcome.handle.abort(new Error(primed.reason));
    // The budget's guard ended it before the client had a byte: a refusal, not the vendor's failure.
    const refusal = run.budget?.streamRefusal();
    if (refusal !== undefined) throw new HttpError(429, "budget_exceeded", refusal);
    const status = primed.error?.status ?? 502;
    return { kind: "failure", failure: { status, message: primed.reason, vendorError: primed.error, retryAfter: primed.error?.retryAfter, limited: primed.limited } };
  }
  // Set after priming: a stream that arrived whole carries the overhead its record holds.
  headers["x-svc-overhead-ms"] = overheadHeader(run);
  return new Response(primed.body, { status: 200, headers });
}

/**
 * A stream's headers (every value encoded by headerValue, so the Response accepts them); if they
 * cannot be built the vendor stream is cancelled, and attemptAll logs the error the client gets.
 */
function streamHeaders(run: Run, model: ModelInfo, provider: ProviderPlugin, contentType: string, outcome: Extract<AttemptOutcome, { stream: true }>): Record<string, string> {
  try {
    // A stream's real cost is known only at its end: the header carries the pre-call estimate (for a
    // whole answer too, so that the header means the same for every stream).
    const headers = answerHeaders(contentType, run, model, provider, estimateCost(run, model, run.ir));
    headers["cache-control"] = "no-cache";
    return headers;
  } catch (e) {
    outcome.handle.abort(e as Error);
    outcome.body.cancel(e).catch(() => {});
    throw e;
  }
}

const addUsage = (a: Usage, b: Usage): Usage => ({
  inputTokens: a.inputTokens + b.inputTokens,
  outputTokens: a.outputTokens + b.outputTokens,
  cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
  cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
});

function toRecord(run: Run, status: number, outcome: RunRecord["outcome"], cost: number, error?: string): RunRecord {
  const { call, routing } = run;
  const usage = addUsage(run.usage, run.rejectedUsage);
  return {
    id: call.requestId,
    ts: call.at,
    latencyMs: hundredths(performance.now() - call.start),
    requestedModel: run.requestedModel,
    routedModel: run.routed?.id ?? "",
    provider: run.routed?.provider ?? "",
    strategy: routing.strategy,
    tier: routing.plan.tier,
    status,
    outcome,
    stream: Boolean(call.body.stream),
    clientFormat: call.clientFormat,
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
  };
}
