// One HTTP call to a vendor, bounded by a timeout (server.upstreamTimeoutMs)
// and aborted through the controller its caller made (see RequestScope), so a
// client that goes away stops the vendor call too. The timeout covers the wait
// for the vendor's response headers and, without streaming, its whole answer; a
// stream's body is bounded by the stream relay (idle and total-duration limits).

export interface UpstreamRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export class UpstreamTimeout extends Error {
  override name = "TimeoutError";
}

export interface UpstreamHandle {
  /** Aborts the vendor call (body included) and stops its timer. */
  abort(reason?: unknown): void;
  /** Stops the timer: the call is over, or a stream takes over with its own idle and duration timers. */
  done(): void;
}

/**
 * A class rather than closures: every vendor call makes one, and three closures per call add up.
 * Its caller awaits `send` itself: an async wrapper here would hold one more async frame, scope and
 * promise for as long as every vendor call is in flight, which makes each young collection slower.
 */
export class UpstreamCall implements UpstreamHandle {
  // A plain timer, cleared on every path: AbortSignal.timeout would keep one per request alive for its whole span.
  private readonly timer: ReturnType<typeof setTimeout>;

  constructor(
    private readonly ac: AbortController,
    timeoutMs: number,
  ) {
    this.timer = setTimeout(expire, timeoutMs, ac, timeoutMs);
  }

  /** Starts the call; a rejection goes through `failed`. */
  send(req: UpstreamRequest): Promise<Response> {
    return fetch(req.url, { method: "POST", headers: req.headers, body: req.body, signal: this.ac.signal, redirect: "manual" });
  }

  /** A failed `send`: stops the timer and gives the error to surface (our timeout as such, not as a generic abort). */
  failed(e: unknown): unknown {
    this.done();
    return this.ac.signal.reason instanceof UpstreamTimeout ? this.ac.signal.reason : e;
  }

  done(): void {
    clearTimeout(this.timer);
  }

  abort(reason?: unknown): void {
    this.done();
    this.ac.abort(reason);
  }
}

function expire(ac: AbortController, timeoutMs: number): void {
  ac.abort(new UpstreamTimeout(`vendor did not answer within ${timeoutMs} ms`));
}
