// One call to one candidate's vendor: the body (the client's own bytes when they can go as they
// are), the upstream call, and the vendor's answer or error decoded.
import type { ModelInfo, ProviderPlugin } from "../../plugin/api.ts";
import { CoreError } from "../errors.ts";
import { codecFor } from "../formats/index.ts";
import type { Codec } from "../formats/types.ts";
import { stringifyClient } from "../client-json.ts";
import type { ChatResponse, IRError } from "../ir.ts";
import type { RunEvent } from "../run-record.ts";
import { spliceMaxTokens } from "../limits/budget-splice.ts";
import { describeFailureDetail, describeVendorFailure, parseRetryAfter } from "../limits/failure.ts";
import { readCapped } from "../read-capped.ts";
import type { CallFormat } from "./call.ts";
import { providerBaseUrl } from "./credentials.ts";
import type { RouterDeps } from "./deps.ts";
import { VIA_HEADER } from "./loop-guard.ts";
import { hundredths, type Run } from "./run.ts";
import { UpstreamCall, type UpstreamHandle } from "./upstream.ts";

/** What each client format calls its reasoning settings, for x-svc-dropped-params. */
const REASONING_PARAM: Record<CallFormat, string> = {
  openai: "reasoning_effort",
  anthropic: "thinking",
  responses: "reasoning",
  gemini: "generationConfig.thinkingConfig",
};

/** Vendor headers worth surfacing to the client (rate limits, vendor request ids). */
const FORWARDED_HEADER = /^(x-ratelimit-|anthropic-ratelimit-|retry-after$|request-id$|x-request-id$)/;
const MAX_VENDOR_BODY = 64 * 1024 * 1024;

/** A candidate that passed its checks; each try of it (a retry after Retry-After is another) begins anew. */
export class Attempt {
  /** performance.now() when the current try began, for its event's latency. */
  start = 0;
  /** Aborts the current try's vendor call; the run's scope aborts them all. */
  ac!: AbortController;
  /** Set by vendorBody: the vendor's bytes can go to the client as they are. */
  passthrough = false;
  /** The one retry of the same model after a short Retry-After is spent. */
  retried = false;

  constructor(
    readonly run: Run,
    readonly model: ModelInfo,
    readonly provider: ProviderPlugin,
    readonly apiKey: string | undefined,
  ) {}

  /** A new try: counted, and the model the run is routed to. */
  begin(): this {
    this.run.attempts++;
    this.run.routed = this.model;
    this.start = performance.now();
    this.ac = this.run.scope.attempt();
    return this;
  }

  /** A successful try's event (failures are logged as `error` events). */
  event(): RunEvent {
    return { type: "attempt", model: this.model.id, provider: this.provider.name, status: 200, latencyMs: hundredths(performance.now() - this.start) };
  }
}

export type AttemptOutcome =
  | { kind: "response"; stream: false; res: ChatResponse; text?: string }
  | { kind: "response"; stream: true; body: ReadableStream<Uint8Array>; handle: UpstreamHandle; vendor: Codec }
  | { kind: "failure"; failure: TryFailure };

/** `limited`: ended by Relay's own stream limits, not the vendor's failure (no cooldown). */
export type TryFailure = { status: number; message: string; vendorError?: IRError; retryAfter?: number; networkError?: unknown; limited?: boolean };

/** One try of the attempt's candidate: the vendor's answer (whole, or a stream still to prime), or why it failed. */
export async function attemptOne(deps: RouterDeps, attempt: Attempt): Promise<AttemptOutcome> {
  const { run, provider } = attempt;
  const call = run.call;
  const config = deps.config();
  // The call's own format when the provider speaks it too (its bytes can then pass), else the provider's.
  const format = provider.alsoSpeaks?.includes(call.format) ? call.format : provider.format;
  const vendor = codecFor(format);
  const ctx = { model: attempt.model.id, stream: run.ir.stream, baseUrl: providerBaseUrl(provider, config, deps.env), apiKey: attempt.apiKey, clientHeaders: call.headers, format };
  const body = vendorBody(attempt, vendor, ctx);
  const { url, headers } = provider.request(ctx);
  headers[VIA_HEADER] = deps.loop.outgoing(call.headers);
  const t0 = performance.now();
  const handle = new UpstreamCall(attempt.ac, config.server.upstreamTimeoutMs);
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
  run.vendorHeaders = forwardedVendorHeaders(res.headers);
  if (res.status >= 400 || res.status < 200) {
    const text = await readCapped(res, 1024 * 1024).catch(() => "");
    handle.done();
    run.waitedMs += performance.now() - t0;
    return vendorFailure(deps, vendor, res, text);
  }
  if (run.ir.stream) {
    if (!res.body) {
      handle.done();
      return { kind: "failure", failure: { status: 502, message: "vendor sent an empty stream" } };
    }
    handle.done(); // the stream relay's idle and duration timers take over
    run.waitedMs += performance.now() - t0;
    return { kind: "response", stream: true, body: res.body, handle, vendor };
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
  return { kind: "response", stream: false, res: decoded, text: attempt.passthrough ? text : undefined };
}

/** A vendor's error answer, decoded; one that came back from this Relay itself ends the run (508). */
function vendorFailure(deps: RouterDeps, vendor: Codec, res: Response, text: string): AttemptOutcome {
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // keep the raw text
  }
  const vendorError = vendor.decodeError(res.status, parsed, res.headers);
  if (res.status === 508 && deps.loop.cameBack(res.headers)) throw new CoreError(508, "loop_detected", vendorError.message);
  const retryAfter = parseRetryAfter(res.headers, Date.now(), 3600) ?? vendorError.retryAfter;
  return { kind: "failure", failure: { status: res.status, message: vendorError.message, vendorError, retryAfter } };
}

/** The client's words for a failed vendor call (provider and cause, never its URL); the runtime's own detail goes to the log. */
function networkFailure(deps: RouterDeps, provider: ProviderPlugin, e: unknown): string {
  deps.log.debug("vendor call failed", { provider: provider.name, detail: describeFailureDetail(e) });
  return describeVendorFailure(provider.name, e);
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
 * Build the vendor body: the client's own bytes when formats match and nothing must change. Sets
 * attempt.passthrough (whether the vendor's answer can go to the client as it is).
 */
function vendorBody(attempt: Attempt, vendor: Codec, ctxArgs: Parameters<ProviderPlugin["request"]>[0]): string {
  const { run, model, provider } = attempt;
  const { call, ir } = run;
  const sameFormat = call.format === vendor.format;
  // OpenAI streams carry usage only when asked; without it the run could not be costed.
  const needsUsageInjection = vendor.format === "openai" && ir.stream && !ir.includeUsage;
  // A budget's cap on max_tokens is the one other change a passthrough body may get (budget-splice.ts).
  const cap = run.budget?.cap;
  if (sameFormat && !provider.adaptBody && !needsUsageInjection && call.body && call.rawBody !== undefined) {
    const raw = call.body.model === model.id || vendor.modelInUrl ? call.rawBody : spliceModel(call.rawBody, call.body.model as string, model.id);
    const spliced = raw === undefined || cap === undefined ? raw : spliceMaxTokens(raw, call.body, call.format, cap);
    if (spliced !== undefined) {
      attempt.passthrough = true;
      return spliced;
    }
  }
  // Unmapped client parameters only mean something to a vendor of the same format.
  const extra = sameFormat ? ir.extra : undefined;
  const maxTokens = cap ?? ir.maxTokens;
  // A model known not to reason refuses reasoning settings (OpenAI answers reasoning_effort on
  // gpt-4o-mini with a 400): they are left out and reported. A model the catalog does not know may.
  const reasoning = model.capabilities.reasoning ? ir.reasoning : undefined;
  const encoded = vendor.encodeRequest({ ...ir, extra, maxTokens, reasoning, model: model.id, includeUsage: ir.stream ? true : ir.includeUsage }, {
    model: model.id,
    defaultMaxTokens: Math.min(model.maxOutput ?? 4096, 16_384),
  });
  run.dropped = sameFormat ? encoded.dropped : [...Object.keys(ir.extra ?? {}), ...encoded.dropped];
  if (ir.reasoning && !reasoning && !ir.reasoning.disabled) run.dropped.push(REASONING_PARAM[call.format]);
  let body = encoded.body;
  if (provider.adaptBody) body = provider.adaptBody(body, ctxArgs);
  attempt.passthrough = sameFormat && !needsUsageInjection;
  return stringifyClient(body, "body");
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
