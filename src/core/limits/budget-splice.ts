// A budget's cap on max_tokens is the one change a passthrough body ever gets (issue 34, item 6):
// the number is spliced into the client's own bytes, as spliceModel does for the model, so that
// everything else reaches the vendor exactly as the client sent it.
import type { WireFormat } from "../../plugin/api.ts";

const OPENAI_FIELDS = ["max_completion_tokens", "max_tokens"] as const;
const ANTHROPIC_FIELDS = ["max_tokens"] as const;
const RESPONSES_FIELDS = ["max_output_tokens"] as const;
/** Characters a JSON number is written with. */
const NUMBER_CHARS = new Set("-+.0123456789eE");

/**
 * `raw` with every max-tokens field the body sets rewritten to `cap` (or, when it sets none, the
 * format's field added); undefined when a field's top-level occurrence is ambiguous, and the
 * caller re-encodes instead.
 */
export function spliceMaxTokens(raw: string, body: Record<string, unknown>, format: WireFormat, cap: number): string | undefined {
  // Gemini's limit sits inside generationConfig: such a body is re-encoded with the cap instead.
  if (format === "gemini") return undefined;
  const fields = format === "anthropic" ? ANTHROPIC_FIELDS : format === "responses" ? RESPONSES_FIELDS : OPENAI_FIELDS;
  let out = raw;
  let found = false;
  for (const field of fields) {
    const value = body[field];
    if (value === undefined || value === null) continue;
    found = true;
    const spliced = spliceNumber(out, field, value as number, cap);
    if (spliced === undefined) return undefined;
    out = spliced;
  }
  if (found) return out;
  // The opening brace of the top-level object is the first one in the text.
  const open = raw.indexOf("{");
  return open === -1 ? undefined : `${raw.slice(0, open + 1)}"${fields[0]}":${cap},${raw.slice(open + 1)}`;
}

/** Replace the one `"field": <number equal to value>` pair; undefined when there is none or more than one. */
function spliceNumber(raw: string, field: string, value: number, to: number): string | undefined {
  const key = `"${field}"`;
  let start = -1;
  let end = -1;
  for (let at = raw.indexOf(key); at !== -1; at = raw.indexOf(key, at + key.length)) {
    let i = at + key.length;
    while (raw.charCodeAt(i) <= 32) i++;
    if (raw[i] !== ":") continue;
    i++;
    while (raw.charCodeAt(i) <= 32) i++;
    let j = i;
    while (j < raw.length && NUMBER_CHARS.has(raw[j]!)) j++;
    if (j === i || Number(raw.slice(i, j)) !== value) continue;
    // The same pair nested somewhere (a tool's schema, say) makes the top-level one ambiguous.
    if (start !== -1) return undefined;
    start = i;
    end = j;
  }
  return start === -1 ? undefined : `${raw.slice(0, start)}${to}${raw.slice(end)}`;
}
