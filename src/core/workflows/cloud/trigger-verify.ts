// Who may call a webhook trigger (spec §2.10, §5.7), checked in this order by admitCall: the method
// (405 naming the trigger's), the body a JSON object (400), the configured `headers` with their values
// and with a `secret` a valid and fresh signature (401), the trigger's rate limit (429 with
// Retry-After), then a replay (401). A call refused before the replay check is not remembered, so a
// sender may retry it (Standard Webhooks retries keep their webhook-id). The cloud (triggers.ts) and
// `relay hooks dev` (src/surfaces/hooks-dev.ts) both admit calls through it. Signatures:
//   - `signatureHeader` set: its value is `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`
//     (several v1= entries may be sent, for a sender rotating its secret; one must match);
//   - unset: the Standard Webhooks headers webhook-id, webhook-timestamp and webhook-signature
//     (`v1,<base64>` entries, space-separated), checked by src/core/webhooks/signing.ts.
// Signatures are checked by Web Crypto's HMAC verify (constant time). The timestamp must lie within
// TOLERANCE_SEC of the server's clock either way; a delivery (the Standard Webhooks id, or the custom
// header's signature) is remembered until its timestamp leaves that window, and a second arrival
// within it is a replay. Header values are compared in constant time too: they may be shared secrets.
import { CoreError } from "../../errors.ts";
import { parseJsonObject } from "../../json-object.ts";
import type { RateLimiter } from "../../limits/rate-limit.ts";
import { windowMs } from "./trigger-config.ts";
import { verify as verifyStandard } from "../../webhooks/signing.ts";
import type { TriggerConfig } from "../../../store/triggers/types.ts";

/** How far a delivery's timestamp may be from the server's clock, either way. */
export const TOLERANCE_SEC = 5 * 60;

const encoder = new TextEncoder();
const refuse = (message: string) => new CoreError(401, "invalid_signature", message);

/** A signed delivery that passed: what identifies it, and until when (ms) a second arrival is a replay. */
export interface Delivery {
  key: string;
  expiresAt: number;
}

/** An incoming call to a trigger path. */
export interface HookCall {
  method: string;
  headers: Headers;
  body: string;
}

/** Where admitCall counts and remembers a trigger's calls. */
export interface Admission {
  /** The trigger's key in `rate`. */
  rateKey: string;
  now: number;
  rate: RateLimiter;
  /** Records a signed delivery; false when it was seen already (a replay). */
  remember(delivery: Delivery): Promise<boolean>;
}

/** The call's input (its JSON object body) once it passes every check; a CoreError names the first refusal. */
export async function admitCall(config: TriggerConfig, secret: string | null, call: HookCall, a: Admission): Promise<Record<string, unknown>> {
  if (call.method !== config.method) throw new CoreError(405, "method_not_allowed", `this trigger takes ${config.method}`, { headers: { allow: config.method } });
  const input = parseJsonObject(call.body === "" ? "{}" : call.body);
  checkHeaders(config, call.headers);
  const delivery = secret === null ? undefined : await checkSignature(config, secret, call.headers, call.body, a.now);
  if (config.rateLimit) {
    const { requests, window } = config.rateLimit;
    const d = await a.rate.acquire(a.rateKey, requests, windowMs(window)!);
    if (!d.allowed) throw new CoreError(429, "rate_limit_exceeded", `this trigger allows ${requests} calls per ${window}`, { retryAfter: d.retryAfterSec });
  }
  if (delivery && !(await a.remember(delivery))) throw new CoreError(401, "replayed_delivery", "this delivery was received already");
  return input;
}

/** 401 unless each configured header is present with its value. */
export function checkHeaders(config: TriggerConfig, headers: Headers): void {
  for (const [name, value] of Object.entries(config.headers)) {
    const got = headers.get(name);
    if (got === null || !sameText(got, value)) throw new CoreError(401, "invalid_header", `the trigger needs the header ${name} with its configured value`);
  }
}

/** The checked delivery of a signed trigger (`secret` opened); 401 when unsigned, wrong or stale. */
export async function checkSignature(config: TriggerConfig, secret: string, headers: Headers, body: string, nowMs: number): Promise<Delivery> {
  return config.signatureHeader === null ? standard(secret, headers, body, nowMs) : custom(config.signatureHeader, secret, headers, body, nowMs);
}

async function custom(header: string, secret: string, headers: Headers, body: string, nowMs: number): Promise<Delivery> {
  const value = headers.get(header);
  if (value === null) throw refuse(`the trigger is signed: send the ${header} header, t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`);
  const parts = value.split(",").map((p) => p.trim().split("="));
  const t = parts.find(([k]) => k === "t")?.[1];
  const macs = parts.filter(([k, v]) => k === "v1" && v !== undefined && /^[0-9a-f]{64}$/i.test(v)).map(([, v]) => v!.toLowerCase());
  if (t === undefined || macs.length === 0) throw refuse(`the ${header} header must be t=<unix seconds>,v1=<hex HMAC-SHA256>`);
  const expiresAt = fresh(t, nowMs);
  const key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["verify"]);
  const data = encoder.encode(`${t}.${body}`);
  for (const mac of macs) if (await crypto.subtle.verify("HMAC", key, hexBytes(mac), data)) return { key: `v1=${mac}`, expiresAt };
  throw refuse(`the ${header} signature does not match the body`);
}

async function standard(secret: string, headers: Headers, body: string, nowMs: number): Promise<Delivery> {
  const id = headers.get("webhook-id");
  const t = headers.get("webhook-timestamp");
  const signatures = headers.get("webhook-signature");
  if (!id || !t || !signatures) throw refuse("the trigger is signed: send the Standard Webhooks headers webhook-id, webhook-timestamp and webhook-signature");
  const expiresAt = fresh(t, nowMs);
  for (const entry of signatures.split(" ")) {
    const [version, mac] = entry.split(",", 2);
    if (version === "v1" && mac && (await verifyStandard(secret, id, t, body, mac))) return { key: `id=${id}`, expiresAt };
  }
  throw refuse("the webhook-signature does not match the body");
}

/** Checks the timestamp (unix seconds) is within the tolerance; when its delivery stops counting as a replay. */
function fresh(t: string, nowMs: number): number {
  const sec = /^[0-9]{1,12}$/.test(t) ? Number(t) : Number.NaN;
  if (!Number.isFinite(sec)) throw refuse("the signature's timestamp must be unix seconds");
  if (Math.abs(nowMs / 1000 - sec) > TOLERANCE_SEC) throw refuse(`the signature's timestamp is more than ${TOLERANCE_SEC} seconds from the server's clock`);
  return (sec + TOLERANCE_SEC) * 1000 + 1000;
}

function hexBytes(hex: string): Uint8Array<ArrayBuffer> {
  return Uint8Array.from(hex.match(/../g)!, (h) => Number.parseInt(h, 16));
}

/** Equal strings, in time that depends on their lengths only. */
function sameText(a: string, b: string): boolean {
  const x = encoder.encode(a);
  const y = encoder.encode(b);
  let diff = x.length ^ y.length;
  for (let i = 0; i < Math.max(x.length, y.length); i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}
