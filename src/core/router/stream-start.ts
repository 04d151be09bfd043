// A stream's start: the vendor stream primed into the client's format with its headers; a stream
// that fails before its first byte becomes a failed attempt, so the next candidate can still answer.
import { HttpError } from "../errors.ts";
import { codecFor } from "../formats/index.ts";
import { answerHeaders, estimateCost, overheadHeader, warnOnMismatch } from "./answer.ts";
import type { RouterDeps } from "./deps.ts";
import { primeStream, type StreamOutcome } from "./stream-relay.ts";
import type { Attempt, AttemptOutcome } from "./vendor-call.ts";

type VendorStream = Extract<AttemptOutcome, { stream: true }>;

/** Prime the vendor stream; a stream that fails before its first byte becomes a failed attempt. */
export async function startStream(deps: RouterDeps, attempt: Attempt, outcome: VendorStream): Promise<Response | Extract<AttemptOutcome, { kind: "failure" }>> {
  const { run, model, provider } = attempt;
  const config = deps.config();
  const call = run.call;
  const client = codecFor(call.clientFormat);
  const streamOptions = call.body.stream_options as { include_usage?: unknown } | undefined;
  // Built before priming: a stream that arrives whole is logged while priming, and an answer
  // whose headers cannot be built must be logged as the error the client gets, not as served.
  const headers = streamHeaders(attempt, client.streamContentType, outcome);
  const primed = await primeStream({
    body: outcome.body,
    vendor: outcome.vendor,
    client,
    passthrough: attempt.passthrough,
    clientModel: model.id,
    includeUsage: Boolean(streamOptions?.include_usage),
    idleTimeoutMs: config.server.streamIdleTimeoutMs,
    limits: config.server,
    guard: run.budget?.streamGuard(),
    scrubber: run,
    signal: attempt.ac.signal,
    abort: (reason) => outcome.handle.abort(reason),
    onWait: (ms) => void (run.waitedMs += ms),
    // Before onEnd: a whole answer's run is logged while priming.
    onStart: () => {
      deps.cooldown.recordSuccess(provider.name);
      run.events.push(attempt.event());
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
function streamHeaders(attempt: Attempt, contentType: string, outcome: VendorStream): Record<string, string> {
  const { run, model, provider } = attempt;
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
