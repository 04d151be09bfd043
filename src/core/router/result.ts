// What route() gives back: data, never an HTTP response. A surface renders it: the proxy as the
// client's wire format with x-svc-* headers and SSE, the hosted API as its relay response, a
// workflow step as its output.
import type { ModelInfo, ProviderPlugin } from "../../plugin/api.ts";
import type { CoreError } from "../errors.ts";
import type { ChatResponse, Usage } from "../ir.ts";
import type { RunRecord } from "../run-record.ts";
import type { CallFormat } from "./call.ts";
import { overheadMs, type Run } from "./run.ts";

/** How a call was routed: what the proxy sends as its x-svc-* headers. */
export interface RouteFacts {
  requestId: string;
  requestedModel: string;
  routedModel: string;
  provider: string;
  strategy: string;
  /** The complexity tier a strategy assigned, when it did. */
  tier?: string;
  reasons: string[];
  fallbackUsed: boolean;
  attempts: number;
  /** USD: a whole answer's cost (with any answer a cascade rejected); a stream's pre-call estimate, its real cost being known at its end (the record's). */
  costUsd: number;
  /** Relay's own time on the call so far, in ms: the time not spent waiting on the vendor or the client. */
  overheadMs: number;
  /** Client parameters the vendor's format has no place for. */
  droppedParams: string[];
  /** max_tokens as a budget capped it, when it did. */
  maxTokensCapped?: number;
  /** The vendor's headers worth passing on (rate limits, request ids). */
  vendorHeaders: Record<string, string>;
}

/** A whole answer, in the call's format. */
export interface RouteAnswer {
  kind: "answer";
  format: CallFormat;
  contentType: string;
  /** The answer's text in the call's format (the vendor's own bytes when they could go as they are). */
  body: string;
  /** The answer decoded. */
  response: ChatResponse;
  /** The served answer's usage (the record adds any a cascade rejected). */
  usage: Usage;
  facts: RouteFacts;
  /** The run as logged, committed before the result was given. */
  record: RunRecord;
}

/**
 * A stream's events framed in the call's format: a stream, or all of them at once when the vendor's
 * stream had ended by the time its first event was read (readableOf makes either a stream).
 */
export type StreamBody = ReadableStream<Uint8Array> | Uint8Array | Blob | string;

/** A stream that has started (its first event arrived), framed in the call's format. */
export interface RouteStream {
  kind: "stream";
  format: CallFormat;
  contentType: string;
  body: StreamBody;
  facts: RouteFacts;
  /** The run as logged once the stream ends (or the client stops reading it); never rejects. */
  ended: Promise<RunRecord>;
}

/** The call could not be answered: a code, a status hint and details; the run as logged when it got as far as a plan. */
export interface RouteFailure {
  kind: "error";
  error: CoreError;
  record?: RunRecord;
}

export type RouteResult = RouteAnswer | RouteStream | RouteFailure;

/** The routing facts of a run served by `model` of `provider`, costing `costUsd`. */
export function factsOf(run: Run, model: ModelInfo, provider: ProviderPlugin, costUsd: number): RouteFacts {
  const { routing } = run;
  return {
    requestId: run.call.id,
    requestedModel: run.requestedModel,
    routedModel: model.id,
    provider: provider.name,
    strategy: routing.strategy,
    tier: routing.plan.tier,
    reasons: routing.plan.reasons,
    fallbackUsed: run.events.some((e) => e.type === "fallback"),
    attempts: run.attempts,
    costUsd,
    overheadMs: run.loggedOverheadMs ?? overheadMs(run),
    droppedParams: run.dropped,
    maxTokensCapped: run.budget?.cap,
    vendorHeaders: run.vendorHeaders,
  };
}

/** A stream body as a stream, for callers that read it event by event. */
export function readableOf(body: StreamBody): ReadableStream<Uint8Array> {
  if (body instanceof ReadableStream) return body;
  if (body instanceof Blob) return body.stream();
  const bytes = typeof body === "string" ? new TextEncoder().encode(body) : body;
  return new ReadableStream({
    start(controller) {
      controller.enqueue(bytes);
      controller.close();
    },
  });
}
