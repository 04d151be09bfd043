// A deployed workflow's webhook trigger (spec §2.10), from the deploy body's `trigger` object: each
// refusal a 400 naming the field. `endpoint` is the path under the team's hook address (segments of
// letters, digits and `._~-`, stored without the slashes around it); `method` POST (default) or PUT;
// `headers` the values a call must carry (names matched without case); `secret` and
// `signatureHeader` as in trigger-verify.ts — without `signatureHeader` the secret signs Standard
// Webhooks deliveries and so must be one (`whsec_` + base64 of 24 to 64 bytes); `rateLimit
// {requests, window}` with the window written as a whole number and a unit, `30s`, `1m`, `2h`, `1d`.
import { fromBase64 } from "../../bytes.ts";
import { invalid, object, text } from "../../registry/fields.ts";
import type { TriggerConfig } from "../../../store/triggers/types.ts";

const PATH = /^[A-Za-z0-9._~-]+(\/[A-Za-z0-9._~-]+)*$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const WINDOW = /^([1-9][0-9]{0,5})(s|m|h|d)$/;
const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const MAX_WINDOW_MS = UNIT_MS.d;
const MAX_HEADERS = 20;
const MAX_REQUESTS = 1_000_000;

/** The trigger as the deploy body gives it, checked; its secret still plain. */
export interface TriggerSpec {
  path: string;
  config: TriggerConfig;
}

export function triggerOf(raw: unknown): TriggerSpec {
  const body = object(raw, "trigger");
  const path = text(body.endpoint, "trigger.endpoint", 256).replace(/^\/+|\/+$/g, "");
  if (!PATH.test(path)) throw invalid("trigger.endpoint", body.endpoint, "path", "must be a path of segments of letters, digits and ._~- separated by /");
  const method = body.method === undefined ? "POST" : body.method;
  if (method !== "POST" && method !== "PUT") throw invalid("trigger.method", body.method, "POST or PUT", "must be POST or PUT");
  const signatureHeader = body.signatureHeader === undefined ? null : headerName(body.signatureHeader, "trigger.signatureHeader");
  const secret = body.secret === undefined ? null : text(body.secret, "trigger.secret", 256);
  if (secret !== null && signatureHeader === null && !standardSecret(secret)) {
    throw invalid("trigger.secret", undefined, "whsec_ secret", "without signatureHeader the secret signs Standard Webhooks deliveries: it must be whsec_ followed by base64 of 24 to 64 bytes");
  }
  if (secret === null && signatureHeader !== null) throw invalid("trigger.signatureHeader", body.signatureHeader, "string", "names where a signature is sent: it needs a secret");
  if (secret !== null && secret.length < 16) throw invalid("trigger.secret", undefined, "string", "must be at least 16 characters");
  const config: TriggerConfig = { method, headers: headersOf(body.headers), secret, signatureHeader, rateLimit: body.rateLimit === undefined ? null : rateLimitOf(body.rateLimit) };
  return { path, config };
}

/** `1m` → 60000: a whole number and a unit (s, m, h, d), at most a day; undefined when it is not one. */
export function windowMs(window: string): number | undefined {
  const m = WINDOW.exec(window);
  if (!m) return undefined;
  const ms = Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS];
  return ms <= MAX_WINDOW_MS ? ms : undefined;
}

function rateLimitOf(raw: unknown): TriggerConfig["rateLimit"] {
  const limit = object(raw, "trigger.rateLimit");
  const requests = limit.requests;
  if (!Number.isInteger(requests) || (requests as number) < 1 || (requests as number) > MAX_REQUESTS) throw invalid("trigger.rateLimit.requests", requests, "integer", `must be an integer from 1 to ${MAX_REQUESTS}`);
  if (typeof limit.window !== "string" || windowMs(limit.window) === undefined) throw invalid("trigger.rateLimit.window", limit.window, "duration", "must be a duration such as 30s, 1m, 2h or 1d (at most 1d)");
  return { requests: requests as number, window: limit.window as string };
}

function headersOf(raw: unknown): Record<string, string> {
  if (raw === undefined) return {};
  const entries = Object.entries(object(raw, "trigger.headers"));
  if (entries.length > MAX_HEADERS) throw invalid("trigger.headers", undefined, "object", `at most ${MAX_HEADERS} headers`);
  return Object.fromEntries(entries.map(([name, value]) => [headerName(name, `trigger.headers.${name}`), text(value, `trigger.headers.${name}`, 1024)]));
}

function headerName(raw: unknown, at: string): string {
  const name = text(raw, at, 128);
  if (!HEADER_NAME.test(name)) throw invalid(at, raw, "header name", "must be an HTTP header name");
  return name.toLowerCase();
}

function standardSecret(secret: string): boolean {
  if (!secret.startsWith("whsec_")) return false;
  try {
    const bytes = fromBase64(secret.slice("whsec_".length)).length;
    return bytes >= 24 && bytes <= 64;
  } catch {
    return false;
  }
}
