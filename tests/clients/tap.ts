/**
 * A recording hop between an agent CLI and Relay: it keeps the exact bytes the
 * CLI sent (and Relay's response headers) and forwards everything unchanged,
 * so a test can compare what a vendor received with what the client sent.
 */
export interface Tapped {
  method: string;
  /** Path with its query string. */
  path: string;
  headers: Record<string, string>;
  bodyText: string;
  json: any;
  status: number;
  responseHeaders: Record<string, string>;
}

export interface Tap {
  url: string;
  seen: Tapped[];
  close(): Promise<void>;
}

// Hop-by-hop or re-computed by fetch; everything else passes as sent.
const REQUEST_SKIP = new Set(["host", "content-length", "accept-encoding", "connection"]);
// The body is handed on decoded, so its encoding and length headers no longer apply.
const RESPONSE_SKIP = new Set(["content-encoding", "content-length", "transfer-encoding", "connection"]);

const without = (headers: Headers, skip: Set<string>) => Object.fromEntries([...headers].filter(([k]) => !skip.has(k)));

export function startTap(target: string): Tap {
  const seen: Tapped[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 0,
    async fetch(req) {
      const url = new URL(req.url);
      const body = await req.arrayBuffer();
      const bodyText = new TextDecoder().decode(body);
      const upstream = await fetch(`${target}${url.pathname}${url.search}`, {
        method: req.method,
        headers: without(req.headers, REQUEST_SKIP),
        body: req.method === "GET" || req.method === "HEAD" ? undefined : body,
      });
      let json: unknown;
      try {
        json = JSON.parse(bodyText);
      } catch {
        json = undefined;
      }
      const responseHeaders = without(upstream.headers, RESPONSE_SKIP);
      seen.push({ method: req.method, path: url.pathname + url.search, headers: Object.fromEntries(req.headers), bodyText, json, status: upstream.status, responseHeaders });
      return new Response(upstream.body, { status: upstream.status, headers: responseHeaders });
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, seen, close: () => server.stop(true) };
}
