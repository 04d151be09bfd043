// One HTTP call to a vendor, bounded by a timeout and aborted through the
// controller its caller made (see RequestScope), so a client that goes away
// stops the vendor call too.

export interface UpstreamRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export class UpstreamTimeout extends Error {
  override name = "TimeoutError";
}

export interface UpstreamHandle {
  response: Response;
  /** Aborts the vendor call (body included) and stops its timer. */
  abort(reason?: unknown): void;
  /** Stops the whole-call timer: the call is over, or a stream takes over with its own idle timer. */
  done(): void;
}

export async function callUpstream(req: UpstreamRequest, ac: AbortController, timeoutMs: number): Promise<UpstreamHandle> {
  const call = new UpstreamCall(ac, timeoutMs);
  try {
    call.response = await fetch(req.url, { method: "POST", headers: req.headers, body: req.body, signal: ac.signal, redirect: "manual" });
    return call;
  } catch (e) {
    call.done();
    // Surface our timeout as such, not as a generic abort.
    throw ac.signal.reason instanceof UpstreamTimeout ? ac.signal.reason : e;
  }
}

/** A class rather than closures: every vendor call makes one, and three closures per call add up. */
class UpstreamCall implements UpstreamHandle {
  response!: Response;
  // A plain timer, cleared on every path: AbortSignal.timeout would keep one per request alive for its whole span.
  private readonly timer: ReturnType<typeof setTimeout>;

  constructor(
    private readonly ac: AbortController,
    timeoutMs: number,
  ) {
    this.timer = setTimeout(expire, timeoutMs, ac, timeoutMs);
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
