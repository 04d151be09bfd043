// A stream's start: the vendor stream primed into the call's format, with its routing facts; a
// stream that fails before its first byte becomes a failed attempt, so the next candidate can still answer.
import { CoreError } from "../errors.ts";
import { codecFor } from "../formats/index.ts";
import { estimateCost, warnOnMismatch } from "./answer.ts";
import type { RouterDeps } from "./deps.ts";
import { factsOf, type RouteStream } from "./result.ts";
import type { StreamOutcome } from "./stream-options.ts";
import { primeStream } from "./stream-relay.ts";
import type { Attempt, AttemptOutcome } from "./vendor-call.ts";

type VendorStream = Extract<AttemptOutcome, { stream: true }>;

/** Prime the vendor stream; a stream that fails before its first byte becomes a failed attempt. */
export async function startStream(deps: RouterDeps, attempt: Attempt, outcome: VendorStream): Promise<RouteStream | Extract<AttemptOutcome, { kind: "failure" }>> {
  const { run, model, provider } = attempt;
  const config = deps.config();
  const client = codecFor(run.call.format);
  const primed = await primeStream({
    body: outcome.body,
    vendor: outcome.vendor,
    client,
    passthrough: attempt.passthrough,
    clientModel: model.id,
    includeUsage: Boolean(run.ir.includeUsage),
    tools: run.ir.tools,
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
    if (refusal !== undefined) throw new CoreError(429, "budget_exceeded", refusal);
    const status = primed.error?.status ?? 502;
    return { kind: "failure", failure: { status, message: primed.reason, vendorError: primed.error, retryAfter: primed.error?.retryAfter, limited: primed.limited } };
  }
  // A stream's real cost is known only at its end: its facts carry the pre-call estimate (for one
  // that arrived whole too, so that the figure means the same for every stream). Made after priming:
  // a stream that arrived whole carries the overhead its record holds.
  const facts = factsOf(run, model, provider, estimateCost(run, model, run.ir));
  return { kind: "stream", format: run.call.format, contentType: client.streamContentType, body: primed.body, facts, ended: run.ended() };
}
