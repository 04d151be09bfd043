// Same-format streams are piped and only events for which `carriesOutcome` is
// true are decoded for the run log. This guards that contract against every
// recorded vendor stream: no event that yields usage, a stop reason or an error
// may be skipped, and the tap still recovers the stream's final usage.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { codecFor } from "../../src/core/formats/index.ts";
import type { RawStreamEvent } from "../../src/core/formats/types.ts";
import type { StreamEvent, WireFormat } from "../../src/core/ir.ts";
import { recordingsDir } from "../fakes/fixtures.ts";

const FOLDERS: Record<string, WireFormat> = {
  anthropic: "anthropic",
  openai: "openai",
  deepseek: "openai",
  groq: "openai",
  mistral: "openai",
  xai: "openai",
  google: "gemini",
};

function rawEvents(format: WireFormat, file: string): RawStreamEvent[] {
  const lines = readFileSync(file, "utf8").split("\n").filter((l) => l.trim());
  return lines.map((data) => (format === "anthropic" ? { event: JSON.parse(data).type as string, data } : { data }));
}

const outcomeOf = (evs: StreamEvent[]) => evs.filter((e) => e.type === "finish" || e.type === "error" || (e.type === "start" && e.usage));

for (const [folder, format] of Object.entries(FOLDERS)) {
  const files = readdirSync(join(recordingsDir(), folder)).filter((f) => f.endsWith(".chunks.txt") && !f.startsWith("responses__") && !f.startsWith("completion__"));
  describe(`${folder} recordings`, () => {
    for (const f of files) {
      test(`${f}: every event that carries the outcome is recognised`, () => {
        const codec = codecFor(format);
        const raws = rawEvents(format, join(recordingsDir(), folder, f));
        const full = codec.streamDecoder();
        const tapped = codec.streamDecoder();
        const fullOutcome: StreamEvent[] = [];
        const tapOutcome: StreamEvent[] = [];
        // The first event is always decoded (the stream is primed on it), like the relay does.
        raws.forEach((raw, i) => {
          const evs = full.push(raw);
          if (outcomeOf(evs).length && !(format === "openai" && raw.data === "[DONE]")) expect({ file: f, event: i, carries: codec.carriesOutcome(raw) }).toEqual({ file: f, event: i, carries: true });
          fullOutcome.push(...outcomeOf(evs));
          if (i === 0 || codec.carriesOutcome(raw)) tapOutcome.push(...outcomeOf(tapped.push(raw)));
        });
        fullOutcome.push(...outcomeOf(full.end()));
        tapOutcome.push(...outcomeOf(tapped.end()));
        const final = (evs: StreamEvent[]) => evs.filter((e) => e.type !== "start").map((e) => (e.type === "finish" ? { type: e.type, stopReason: e.stopReason, usage: e.usage } : { type: e.type }));
        expect(final(tapOutcome)).toEqual(final(fullOutcome));
      });
    }
  });
}

describe("openai carriesOutcome on null members", () => {
  const carries = (data: string) => codecFor("openai").carriesOutcome({ data });
  test("content chunks that say finish_reason and usage are null carry nothing", () => {
    expect(carries('{"choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":null}],"usage":null}')).toBe(false);
    expect(carries('{"choices":[{"index":0,"delta":{"content":"hi"},"finish_reason" : null}],"usage" :  null}')).toBe(false);
  });
  test("a named finish_reason, a usage object, an error or [DONE] carry the outcome, whatever the spacing", () => {
    expect(carries('{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":null}')).toBe(true);
    expect(carries('{"choices":[{"index":0,"delta":{},"finish_reason" :\n "length"}]}')).toBe(true);
    expect(carries('{"choices":[],"usage": {"prompt_tokens":3,"completion_tokens":1}}')).toBe(true);
    expect(carries('{"error":{"message":"overloaded"}}')).toBe(true);
    expect(carries("[DONE]")).toBe(true);
  });
});
