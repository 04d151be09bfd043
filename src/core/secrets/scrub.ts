// Removes secrets from text that came from outside Relay's control (a vendor's
// error message, a log line, CLI output) before it leaves: known secrets by exact
// value (see known.ts), then the shapes vendors' keys have, whole or as the
// partly masked echoes vendors send back (`sk-proj-ab***yz`, `sk-...wxyz`),
// bearer tokens, credentials in query strings (`?key=`) and URL userinfo.
// Runs only on error texts, log lines and CLI output, never on answer bodies.
import { REDACTED, stripUrlCredentials } from "../../config/redact.ts";

export { REDACTED };

/**
 * Values shorter than this are not scrubbed by exact value: a dummy key such as "ollama" or "none"
 * would otherwise vanish from every message that names the provider.
 */
export const MIN_SECRET_LENGTH = 8;

/** A masked stretch in an echoed key: `**`, `...` or `…`. */
const MASK = String.raw`(?:\*{2,}|\.{3}|…)`;
/** A partly masked key after its prefix: what is shown, the mask, what is shown (a sentence's full stop is not part of it). */
const MASKED_TAIL = String.raw`[\w-]*${MASK}[\w*…-]*`;

/**
 * Each shape: a literal every match contains, the expression (compiled once), and its replacement
 * (`$1` keeps a "Bearer " or a "?key=" in front). An expression runs only on text that holds its
 * literal: one expression of all the shapes can skip no position of the text, and cost several
 * times the literal checks on a log line that holds no secret.
 */
const KEY_SHAPES: Array<[literal: string, shape: RegExp, replacement: string]> = [
  // OpenAI, Anthropic and most OpenAI-compatible vendors: sk-, sk-proj-, sk-ant-api03-…. A whole
  // key is long and has a digit, so that words such as "sk-learn" are left alone.
  ["sk-", new RegExp(String.raw`\bsk-(?:(?=[\w-]*\d)[\w-]{20,}|${MASKED_TAIL})`, "g"), REDACTED],
  // Relay's own hosted API keys (src/core/tenancy/api-keys.ts); the display prefix (`rk_live_ab12`) is too short to match.
  ["rk_live_", new RegExp(String.raw`\brk_live_(?:[\w-]{20,}|${MASKED_TAIL})`, "g"), REDACTED],
  // Its signed-in users' access tokens and invites (src/core/tenancy/accounts-tokens.ts, accounts-invites.ts).
  ["rat_", /\brat_[\w-]{20,}/g, REDACTED],
  ["rinv_", /\brinv_[\w-]{20,}/g, REDACTED],
  // Webhook signing secrets (Standard Webhooks' whsec_ + base64), Relay's and Stripe's.
  ["whsec_", /\bwhsec_[\w+/=]{20,}/g, REDACTED],
  // Google API keys.
  ["AIza", new RegExp(String.raw`\bAIza(?:[\w-]{20,}|${MASKED_TAIL})`, "g"), REDACTED],
  // A bearer token (with a digit or a mask in it: "Bearer token required" is prose).
  ["earer", /\b([Bb]earer\s+)(?=[\w.~+/=*-]*[\d*])[\w.~+/=*-]{8,}/g, `$1${REDACTED}`],
  // A credential in a query string, as Gemini's `?key=` and signed URLs carry them.
  ["=", /([?&](?:key|api[_-]?key|apiKey|access_token|token|secret|password|sig|signature)=)[^&#\s"'<>]+/g, `$1${REDACTED}`],
  // Any other partly masked echo: abc1****wxyz (tried only where a word starts).
  ["***", /(?<![\w-])[\w-]+\*{3,}[\w*-]*|\*{3,}[\w-]+/g, REDACTED],
];

/** `text` with vendor-key shapes, query-string credentials and URL userinfo replaced. */
export function scrubShapes(text: string): string {
  let out = text;
  for (const [literal, shape, replacement] of KEY_SHAPES) if (out.includes(literal)) out = out.replace(shape, replacement);
  return stripUrlCredentials(out);
}

const REGEX_SPECIAL = /[.*+?^${}()|[\]\\]/g;

/** Replaces a fixed set of secret values, matched in one pass by an expression built once. */
export class SecretValues {
  private readonly pattern: RegExp | undefined;
  readonly size: number;

  constructor(values: Iterable<string>) {
    const all = new Set<string>();
    for (const v of values) {
      if (v.length < MIN_SECRET_LENGTH) continue;
      all.add(v);
      // As it would appear inside a URL.
      all.add(encodeURIComponent(v));
    }
    this.size = all.size;
    // Longest first, so that a secret containing another is replaced whole.
    const sorted = [...all].sort((a, b) => b.length - a.length);
    this.pattern = sorted.length ? new RegExp(sorted.map((v) => v.replace(REGEX_SPECIAL, "\\$&")).join("|"), "g") : undefined;
  }

  scrub(text: string): string {
    return this.pattern ? text.replace(this.pattern, REDACTED) : text;
  }
}

/** `text` with `values`, then one more value (a request's own credential), then every key shape replaced. */
export function scrubText(text: string, values: SecretValues, extra?: string): string {
  let out = values.scrub(text);
  if (extra !== undefined && extra.length >= MIN_SECRET_LENGTH && out.includes(extra)) out = out.replaceAll(extra, REDACTED);
  return scrubShapes(out);
}
