// The outcomes a proxy has yet to send to the mesh: each settled run's, anonymised as it settles
// (outcomesOf: names, a bucket, a class and numbers; never the request's text, tools or metadata).
// Bounded: past MAX_QUEUED the oldest are dropped and counted.
import type { ChatRequest } from "../ir.ts";
import type { RunRecord } from "../run-record.ts";
import { approxTextTokens, estimateTokens } from "../tokens.ts";
import { requestBucket } from "./bucket.ts";
import { outcomesOf, type MeshOutcome } from "./outcome.ts";

const MAX_QUEUED = 10_000;

export class MeshOutbox {
  private queue: MeshOutcome[] = [];
  dropped = 0;

  constructor(private readonly enabled: () => boolean) {}

  /** A settled run (the router calls it: RouterDeps.mesh); its bucket uses the estimate strategies see. */
  tap(record: RunRecord, request: ChatRequest): void {
    if (!this.enabled() || !record.routedModel) return;
    this.queue.push(...outcomesOf(record, requestBucket(record.tier, estimateTokens(request, approxTextTokens))));
    const excess = this.queue.length - MAX_QUEUED;
    if (excess > 0) {
      this.queue.splice(0, excess);
      this.dropped += excess;
    }
  }

  get pending(): number {
    return this.queue.length;
  }

  /** Removes and returns up to `max` of the oldest outcomes (the sync client keeps them until the cloud has them). */
  take(max: number): MeshOutcome[] {
    return this.queue.splice(0, max);
  }
}
