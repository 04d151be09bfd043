// Golden tests against real Gemini recordings (vercel/ai fixtures): decode,
// then re-encode with our encoders and decode again.
import { describe, expect, test } from "bun:test";
import { geminiCodec } from "../../src/core/formats/gemini/index.ts";
import { SseParser } from "../../src/core/formats/sse.ts";
import type { ContentBlock, StreamEvent } from "../../src/core/ir.ts";
import { collect, decodeAll, fixtureChunks, readFixture } from "./gemini-ollama-stream-helpers.ts";

const json = (name: string): unknown => JSON.parse(readFixture(name));
const decodeStream = (name: string) => collect(decodeAll(geminiCodec.streamDecoder(), fixtureChunks(name)));
const toolIdsErased = (blocks: ContentBlock[]) => blocks.map((b) => (b.type === "tool_use" ? { ...b, id: "*" } : b));

/** Re-encodes IR stream events as Gemini SSE and decodes the bytes again. */
function reencodeStream(events: StreamEvent[]) {
  const encoder = geminiCodec.streamEncoder({ model: "gemini-test" });
  const sse = events.map((e) => encoder.encode(e)).join("") + encoder.end();
  const parser = new SseParser();
  const raws = [...parser.push(sse), ...parser.end()];
  return collect(decodeAll(geminiCodec.streamDecoder(), raws.map((r) => r.data)));
}

describe("gemini decodeResponse on recordings", () => {
  test("text reply: the thoughtSignature on the text part is kept in a thinking block before the text", () => {
    const res = geminiCodec.decodeResponse(json("google-text.json"));
    expect(res.id).toBe("Un6LacrVMcjUxs0PmJfWoQc");
    expect(res.model).toBe("gemini-3-pro-preview");
    expect(res.content).toHaveLength(2);
    expect(res.content[0]).toMatchObject({ type: "thinking", text: "", signature: expect.stringMatching(/^EtoFCtcFAb4/) });
    expect(res.content[1]).toEqual({
      type: "text",
      text: "There are **3** r's in strawberry.\n\nHere is the breakdown: st**r**awbe**rr**y.",
    });
    expect(res.stopReason).toBe("end_turn");
  });

  test("usage: thoughts count as output and as reasoning (candidatesTokenCount excludes them)", () => {
    const res = geminiCodec.decodeResponse(json("google-reasoning.json"));
    expect(res.usage).toEqual({ inputTokens: 9, outputTokens: 29 + 282, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 282 });
  });

  test("tool call without an id gets a generated one and stop reason tool_use although Gemini says STOP", () => {
    for (const name of ["google-tool-call.json", "google-tool-call-gemini3.json"]) {
      const res = geminiCodec.decodeResponse(json(name));
      const call = res.content.find((b) => b.type === "tool_use");
      expect(call).toMatchObject({ name: "weather", input: { location: "San Francisco" }, id: expect.stringMatching(/^call_/) });
      expect(res.stopReason).toBe("tool_use");
    }
  });

  test("cached tokens are inside promptTokenCount and must not be counted twice", () => {
    const body = json("google-text.json") as Record<string, unknown>;
    const res = geminiCodec.decodeResponse({
      ...body,
      usageMetadata: { promptTokenCount: 1000, cachedContentTokenCount: 800, candidatesTokenCount: 20, thoughtsTokenCount: 5 },
    });
    expect(res.usage).toEqual({ inputTokens: 200, cacheReadTokens: 800, cacheWriteTokens: 0, outputTokens: 25, reasoningTokens: 5 });
    const again = geminiCodec.decodeResponse(geminiCodec.encodeResponse(res, { model: "m" }));
    expect(again.usage).toEqual(res.usage);
    expect(geminiCodec.encodeResponse(res, { model: "m" }).usageMetadata).toMatchObject({
      promptTokenCount: 1000,
      cachedContentTokenCount: 800,
      candidatesTokenCount: 20,
      thoughtsTokenCount: 5,
      totalTokenCount: 1025,
    });
  });

  for (const name of ["google-text.json", "google-reasoning.json", "google-reasoning-gemini3.json", "google-tool-call.json", "google-tool-call-gemini3.json"]) {
    test(`${name}: encodeResponse puts the thoughtSignature back on the same part (Gemini 3 rejects calls without it)`, () => {
      const original = json(name) as { candidates: Array<{ content: { parts: unknown[] } }> };
      const res = geminiCodec.decodeResponse(original);
      const encoded = geminiCodec.encodeResponse(res, { model: "gemini-3-pro-preview" }) as typeof original;
      const strip = (parts: unknown[]) =>
        parts.map((p) => {
          const { functionCall, ...rest } = p as { functionCall?: { name: string; args: unknown } };
          return functionCall ? { ...rest, functionCall: { name: functionCall.name, args: functionCall.args } } : rest;
        });
      expect(strip(encoded.candidates[0].content.parts)).toEqual(strip(original.candidates[0].content.parts));
      const again = geminiCodec.decodeResponse(encoded);
      expect(toolIdsErased(again.content)).toEqual(toolIdsErased(res.content));
      expect(again.usage).toEqual(res.usage);
      expect(again.stopReason).toBe(res.stopReason);
    });
  }
});

describe("gemini streamDecoder on recordings", () => {
  test("text chunks extend one text block; the trailing signature-only part becomes a thinking block", () => {
    const out = decodeStream("google-text.chunks.txt");
    expect(out.id).toBe("bH6LaZW8Fp_3nsEPqtaSwQ4");
    expect(out.model).toBe("gemini-3-pro-preview");
    expect(out.content[0]).toEqual({ type: "text", text: 'There are **3** "r"s in strawberry.\n\nst**r**awbe**rr**y' });
    expect(out.content[1]).toMatchObject({ type: "thinking", text: "", signature: expect.stringMatching(/^EqsFCqgFAb4/) });
    expect(out.content).toHaveLength(2);
    expect(out.stopReason).toBe("end_turn");
    expect(out.usage).toEqual({ inputTokens: 9, outputTokens: 23 + 185, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 185 });
  });

  test("usage comes from the last chunk, not the first", () => {
    const out = decodeStream("google-reasoning-gemini3.chunks.txt");
    expect(out.usage?.outputTokens).toBe(23 + 302);
    expect(out.content[0]).toMatchObject({ type: "text", text: 'There are **3** "r"s in strawberry.\n\nSt**r**awbe**rr**y' });
  });

  test("thought parts become a thinking block with their text", () => {
    const out = decodeStream("google-stream-no-args-tool-call.chunks.txt");
    expect(out.content[0]).toMatchObject({ type: "thinking", text: expect.stringMatching(/^\*\*Processing User Requests\*\*/) });
  });

  test("a function call with no args yields {} and streamed calls each become their own block", () => {
    const out = decodeStream("google-stream-no-args-tool-call.chunks.txt");
    const calls = out.content.filter((b) => b.type === "tool_use");
    expect(calls.map((c) => [c.name, c.input])).toEqual([
      ["read_theme", {}],
      ["read_screen", { id: "A" }],
      ["read_screen", { id: "B" }],
      ["read_screen", { id: "C" }],
    ]);
    expect(new Set(calls.map((c) => c.id)).size).toBe(4);
    // the signature that came with read_theme precedes it
    const sigAt = out.content.findIndex((b) => b.type === "thinking" && !!b.signature);
    expect(out.content[sigAt + 1]).toMatchObject({ type: "tool_use", name: "read_theme" });
    expect(out.stopReason).toBe("tool_use");
    expect(out.usage).toMatchObject({ inputTokens: 249, outputTokens: 58 + 183, reasoningTokens: 183 });
  });

  test("partialArgs string pieces are concatenated per JSONPath, one call per name part", () => {
    const out = decodeStream("google-stream-tool-call-arguments.chunks.txt");
    const calls = out.content.filter((b) => b.type === "tool_use");
    expect(calls.map((c) => [c.name, c.input])).toEqual([
      ["getWeather", { location: "Boston" }],
      ["getWeather", { location: "San Francisco" }],
    ]);
    expect(out.stopReason).toBe("tool_use");
  });

  test("array arguments are built from $.x[n].y paths even without a terminal empty functionCall", () => {
    const out = decodeStream("google-stream-tool-call-array-arguments-missing-terminal-function-call.chunks.txt");
    const calls = out.content.filter((b) => b.type === "tool_use");
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({
      name: "writeItems",
      input: {
        operations: [
          { action: "add", description: "Fresh red apple", itemid: "apple_001", price: 0.5 },
          { action: "add", description: "Ripe yellow banana", itemid: "banana_001", price: 0.3 },
        ],
      },
    });
  });

  test("nested object/array paths and multi-piece strings assemble the whole argument tree", () => {
    const out = decodeStream("google-vertex-stream-tool-call-arguments-nested.1.chunks.txt");
    const call = out.content.find((b) => b.type === "tool_use");
    const input = call?.type === "tool_use" ? (call.input as { recipe: { name: string; ingredients: unknown[]; steps: string[] } }) : undefined;
    expect(input?.recipe.name).toBe("Lasagna");
    expect(input?.recipe.ingredients).toHaveLength(10);
    expect(input?.recipe.ingredients[0]).toEqual({ amount: "16 oz", name: "Lasagna noodles" });
    expect(input?.recipe.steps[1]).toBe("Cook lasagna noodles according to package directions, drain and set aside.");
    expect(input?.recipe.steps[4]).toBe("In a 9x13 baking dish, spread a thin layer of meat sauce.");
    expect(input?.recipe.steps).toHaveLength(10);
  });

  test("a whole functionCall chunk followed by an empty finishing chunk gives one call", () => {
    for (const name of ["google-tool-call.chunks.txt", "google-tool-call-gemini3.chunks.txt"]) {
      const out = decodeStream(name);
      expect(out.content.map((b) => b.type)).toEqual(["thinking", "tool_use"]);
      expect(out.content[1]).toMatchObject({ name: "weather", input: { location: "San Francisco" } });
    }
  });

  for (const name of [
    "google-text.chunks.txt",
    "google-reasoning.chunks.txt",
    "google-reasoning-gemini3.chunks.txt",
    "google-tool-call.chunks.txt",
    "google-tool-call-gemini3.chunks.txt",
    "google-stream-no-args-tool-call.chunks.txt",
    "google-stream-tool-call-arguments.chunks.txt",
    "google-stream-tool-call-array-arguments-missing-terminal-function-call.chunks.txt",
    "google-vertex-stream-tool-call-arguments-nested.1.chunks.txt",
  ]) {
    test(`${name}: content, signatures and usage survive streamEncoder -> SSE -> streamDecoder`, () => {
      const events = decodeAll(geminiCodec.streamDecoder(), fixtureChunks(name));
      const first = collect(events);
      const second = reencodeStream(events);
      expect(toolIdsErased(second.content)).toEqual(toolIdsErased(first.content));
      expect(second.usage).toEqual(first.usage);
      expect(second.stopReason).toBe(first.stopReason);
      expect(second.id).toBe(first.id);
    });
  }
});

describe("gemini errors", () => {
  test("429 RESOURCE_EXHAUSTED: rate_limit with the RetryInfo delay rounded up", () => {
    const err = geminiCodec.decodeError(429, json("google-429-retry-info.json"));
    expect(err).toEqual({
      kind: "rate_limit",
      status: 429,
      message: "You exceeded your current quota, please check your plan.",
      vendorType: "RESOURCE_EXHAUSTED",
      retryAfter: 35,
    });
    expect(geminiCodec.decodeError(429, geminiCodec.encodeError(err))).toEqual(err);
  });

  test("503 UNAVAILABLE is overloaded; a bad API key (400 INVALID_ARGUMENT) is authentication", () => {
    expect(geminiCodec.decodeError(503, { error: { code: 503, message: "The model is overloaded.", status: "UNAVAILABLE" } }).kind).toBe("overloaded");
    const badKey = {
      error: {
        code: 400,
        message: "API key not valid.",
        status: "INVALID_ARGUMENT",
        details: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "API_KEY_INVALID" }],
      },
    };
    expect(geminiCodec.decodeError(400, badKey).kind).toBe("authentication");
    expect(geminiCodec.decodeError(500, "upstream gone").message).toBe("upstream gone");
  });

  test("an error object inside the SSE stream ends it with an error event and no finish", () => {
    const decoder = geminiCodec.streamDecoder();
    const events = decodeAll(decoder, [
      fixtureChunks("google-text.chunks.txt")[0],
      JSON.stringify({ error: { code: 500, message: "Internal error", status: "INTERNAL" } }),
    ]);
    const out = collect(events);
    expect(out.errors).toEqual(["Internal error"]);
    expect(events.at(-1)).toMatchObject({ type: "error", error: { kind: "api_error", status: 500 } });
    expect(events.some((e) => e.type === "finish")).toBe(false);
  });
});

describe("gemini finish reasons", () => {
  const respond = (extra: Record<string, unknown>, parts: unknown[] = [{ text: "x" }]) =>
    geminiCodec.decodeResponse({ candidates: [{ content: { role: "model", parts }, ...extra }] });

  test("MAX_TOKENS, SAFETY family and MALFORMED_FUNCTION_CALL map to max_tokens, content_filter, error", () => {
    expect(respond({ finishReason: "MAX_TOKENS" }).stopReason).toBe("max_tokens");
    for (const r of ["SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY"]) {
      expect(respond({ finishReason: r }).stopReason).toBe("content_filter");
    }
    expect(respond({ finishReason: "MALFORMED_FUNCTION_CALL" }, []).stopReason).toBe("error");
  });

  test("a prompt blocked by promptFeedback is content_filter with no content", () => {
    const res = geminiCodec.decodeResponse({ promptFeedback: { blockReason: "SAFETY" }, usageMetadata: { promptTokenCount: 7 } });
    expect(res.content).toEqual([]);
    expect(res.stopReason).toBe("content_filter");
    expect(res.usage.inputTokens).toBe(7);
    const events = decodeAll(geminiCodec.streamDecoder(), [JSON.stringify({ promptFeedback: { blockReason: "OTHER" } })]);
    expect(collect(events).stopReason).toBe("content_filter");
  });
});
