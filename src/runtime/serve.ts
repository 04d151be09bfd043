// HTTP listener seam: the only place that calls Bun.serve.

/** The address a listener is bound to: its real port even when asked for port 0. */
export interface BoundAddress {
  readonly hostname: string;
  readonly port: number;
}

/** PEM texts of a certificate (chain) and its private key: the listener then serves HTTPS. */
export interface TlsFiles {
  cert: string;
  key: string;
}

export interface ListenOptions {
  hostname: string;
  port: number;
  tls?: TlsFiles;
  /** Gets the socket's address with every request (the browser guard checks Host against its port). */
  fetch: (request: Request, bound: BoundAddress) => Response | Promise<Response>;
  /** Hard cap enforced by the runtime; the proxy answers its own error below it. */
  maxRequestBodySize: number;
  /** Seconds a connection may sit idle (also bounds slow header senders). */
  idleTimeoutSec: number;
}

export interface Listener {
  readonly hostname: string;
  readonly port: number;
  readonly url: string;
  /** Requests whose response has not finished yet. */
  inFlight(): number;
  /** Stop accepting, let in-flight requests finish for up to graceMs, then cut the rest. */
  stop(graceMs: number): Promise<{ forced: number }>;
  /** Exempt one request (a long stream) from the idle timeout. */
  noTimeout(request: Request): void;
}

/** Collections start once the server has been quiet this long after a burst... */
const QUIET_MS = 1_000;
/** ...of at least this many requests (a trickle of traffic never triggers one)... */
export const BURST_REQUESTS = 500;
/** ...and that many full collections, one per quiet tick (see quietCollector). */
export const QUIET_COLLECTIONS = 2;

export function listen(opts: ListenOptions): Listener {
  let served = 0;
  // Assigned as soon as Bun.serve returns, before any request can be handled.
  let bound: BoundAddress = { hostname: opts.hostname, port: opts.port };
  const server = Bun.serve({
    hostname: opts.hostname,
    port: opts.port,
    tls: opts.tls,
    fetch: (request) => {
      served++;
      return opts.fetch(request, bound);
    },
    maxRequestBodySize: opts.maxRequestBodySize,
    idleTimeout: Math.min(255, Math.max(1, Math.round(opts.idleTimeoutSec))),
    // Our own handlers answer every error; this is the last resort for a bug.
    error: () => new Response(JSON.stringify({ error: { code: "internal_error", message: "Internal server error" } }), { status: 500, headers: { "content-type": "application/json" } }),
  });
  const hostname = server.hostname ?? opts.hostname;
  const port = server.port ?? opts.port;
  bound = { hostname, port };
  const stopIdleGc = collectWhenQuiet(() => served, () => server.pendingRequests);
  return {
    hostname,
    port,
    url: `${opts.tls ? "https" : "http"}://${hostname.includes(":") ? `[${hostname}]` : hostname}:${port}`,
    inFlight: () => server.pendingRequests,
    noTimeout: (request) => server.timeout(request, 0),
    async stop(graceMs) {
      stopIdleGc();
      void server.stop(false);
      const deadline = Date.now() + graceMs;
      while (server.pendingRequests > 0 && Date.now() < deadline) await Bun.sleep(20);
      const forced = server.pendingRequests;
      await server.stop(true);
      return { forced };
    },
  };
}

/**
 * The garbage collector runs when JavaScript allocates, so after a burst (a
 * thousand streams closing, say) an idle server would keep that heap, and its
 * RSS, until the next traffic. Once the server has been quiet for QUIET_MS after
 * at least BURST_REQUESTS requests, a full collection gives the memory back.
 */
function collectWhenQuiet(served: () => number, pending: () => number): () => void {
  const collector = quietCollector(served, pending, () => Bun.gc(true));
  const timer = setInterval(collector.tick, QUIET_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * The decision behind collectWhenQuiet, one call per QUIET_MS tick. A burst gets
 * QUIET_COLLECTIONS full collections, one per quiet tick: native resources that the
 * first one finalizes (sockets, response bodies) are released on later turns, and
 * only a later collection frees what they held (bench/run.ts case f: 86.0-86.6 MB
 * 5 s after 1,000 streams closed with one, 82.1-82.7 MB with two, 82.1 with three).
 */
export function quietCollector(served: () => number, pending: () => number, collect: () => void): { tick: () => void } {
  let lastSeen = 0;
  let atLastBurst = 0;
  let owed = 0;
  return {
    tick() {
      const now = served();
      const quiet = now === lastSeen && pending() === 0;
      lastSeen = now;
      if (!quiet) return;
      if (now - atLastBurst >= BURST_REQUESTS) {
        atLastBurst = now;
        owed = QUIET_COLLECTIONS;
      }
      if (owed === 0) return;
      owed--;
      collect();
    },
  };
}
