/** Turns a scripted Reply into the exact wire pieces to send, for one dialect and call. */
import type { Reply } from "./types.ts";
import type { ChatCall, Dialect } from "./render/dialect.ts";
import { JSON_TYPE } from "./render/shared.ts";

export interface Plan {
  status: number;
  headers: Record<string, string>;
  /** Wire pieces in order; a non-streamed body is a single piece. */
  pieces: string[];
}

const HUGE_BYTES = 20 * 1024 * 1024;
const HUGE_PIECE_BYTES = 64 * 1024;
let hugeText: string | undefined;

/** About 20 MB of plain text, built once per process. */
function huge(): string {
  hugeText ??= "The quick brown fox jumps over the lazy dog. ".repeat(Math.ceil(HUGE_BYTES / 45)).slice(0, HUGE_BYTES);
  return hugeText;
}

export function planReply(dialect: Dialect, reply: Reply, call: ChatCall): Plan {
  const extra = reply.headers ?? {};
  const json = (status: number, body: string): Plan => ({ status, headers: { "content-type": JSON_TYPE, ...extra }, pieces: [body] });
  const stream = (pieces: string[]): Plan => ({
    status: reply.status ?? 200,
    headers: { "content-type": dialect.streamContentType(call), "cache-control": "no-cache", ...extra },
    pieces,
  });

  if (reply.raw?.body !== undefined) return json(reply.status ?? 200, reply.raw.body);
  if (reply.raw?.chunks) return stream(dialect.frame(reply.raw.chunks, call));
  if (reply.status !== undefined && reply.status >= 400) {
    return json(reply.status, dialect.error(reply.status, reply.errorType, reply.errorMessage));
  }

  const content = reply.fault === "huge" ? { ...reply, text: huge(), textChunks: HUGE_BYTES / HUGE_PIECE_BYTES } : reply;
  if (reply.fault === "malformed-json") {
    const whole = dialect.body(content, call);
    return json(200, whole.slice(0, Math.floor(whole.length / 2)));
  }
  if (reply.fault === "malformed-sse") {
    const pieces = dialect.frame(dialect.events(content, call), call);
    pieces.splice(1, 0, dialect.garbage(call));
    return stream(pieces);
  }
  if (call.stream) return stream(dialect.frame(dialect.events(content, call), call));
  return json(200, dialect.body(content, call));
}
