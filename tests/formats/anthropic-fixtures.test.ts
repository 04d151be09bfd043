// Golden replay of real Anthropic recordings through the codec, and re-encoding
// of what was decoded (responses and streams) to prove nothing is lost.
import { describe, expect, test } from "bun:test";
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { anthropicCodec } from "../../src/core/formats/anthropic/index.ts";
import { SseParser } from "../../src/core/formats/sse.ts";
import type { ChatResponse, StopReason, StreamEvent, Usage } from "../../src/core/ir.ts";
import { recordingsDir } from "../fakes/fixtures.ts";

const DIR = path.join(recordingsDir(), "anthropic");
const files = readdirSync(DIR);
const jsonFiles = files.filter((f) => f.endsWith(".json"));
const chunkFiles = files.filter((f) => f.endsWith(".chunks.txt"));

type Wire = Record<string, any>;
const readJson = (name: string): Wire => JSON.parse(readFileSync(path.join(DIR, name), "utf8"));

/** Some recordings hold several requests' streams back to back; each ends with message_stop. */
function streams(name: string): string[][] {
  const lines = readFileSync(path.join(DIR, name), "utf8").split("\n").filter((l) => l.trim());
  const out: string[][] = [[]];
  for (const line of lines) {
    out.at(-1)!.push(line);
    if (JSON.parse(line).type === "message_stop") out.push([]);
  }
  return out.filter((s) => s.length);
}

function decodeLines(lines: string[]): StreamEvent[] {
  const dec = anthropicCodec.streamDecoder();
  return [...lines.flatMap((data) => dec.push({ event: JSON.parse(data).type, data })), ...dec.end()];
}

interface Assembled {
  id?: string;
  model?: string;
  blocks: Array<{ type: string; text?: string; signature?: string; id?: string; name?: string; input?: unknown; data?: string }>;
  stopReason?: StopReason;
  usage?: Usage;
  errors: string[];
}

/** Rebuild a response from IR events, checking the stream invariants on the way. */
function assemble(events: StreamEvent[]): Assembled {
  const out: Assembled = { blocks: [], errors: [] };
  const args = new Map<number, string>();
  const open = new Set<number>();
  for (const ev of events) {
    expect(out.stopReason).toBeUndefined(); // nothing after finish
    switch (ev.type) {
      case "start":
        expect(out.id).toBeUndefined();
        out.id = ev.id;
        out.model = ev.model;
        break;
      case "block_start":
        expect(ev.index).toBe(out.blocks.length); // dense, in order
        open.add(ev.index);
        out.blocks.push(
          ev.block.type === "tool_use"
            ? { type: "tool_use", id: ev.block.id, name: ev.block.name }
            : ev.block.type === "redacted_thinking"
              ? { type: "redacted_thinking", data: ev.block.data }
              : { type: ev.block.type, text: "" },
        );
        break;
      case "text_delta":
      case "thinking_delta":
        expect(open.has(ev.index)).toBe(true);
        out.blocks[ev.index].text += ev.text;
        break;
      case "signature_delta":
        expect(open.has(ev.index)).toBe(true);
        out.blocks[ev.index].signature = (out.blocks[ev.index].signature ?? "") + ev.signature;
        break;
      case "tool_args_delta":
        expect(open.has(ev.index)).toBe(true);
        args.set(ev.index, (args.get(ev.index) ?? "") + ev.json);
        break;
      case "block_stop":
        expect(open.delete(ev.index)).toBe(true);
        if (out.blocks[ev.index].type === "tool_use") {
          const json = args.get(ev.index) ?? "";
          out.blocks[ev.index].input = json === "" ? {} : JSON.parse(json);
        }
        break;
      case "finish":
        expect(open.size).toBe(0);
        out.stopReason = ev.stopReason;
        out.usage = ev.usage;
        break;
      case "error":
        out.errors.push(`${ev.error.kind}: ${ev.error.message}`);
        break;
      case "ping":
        break;
    }
  }
  return out;
}

/** Encode IR events as the client would receive them and decode the bytes again. */
function reencode(events: StreamEvent[]): StreamEvent[] {
  const enc = anthropicCodec.streamEncoder({ model: "relay-model" });
  const text = events.map((e) => enc.encode(e)).join("") + enc.end();
  const parser = new SseParser();
  const raws = [...parser.push(text), ...parser.end()];
  for (const raw of raws) expect(raw.event).toBe(JSON.parse(raw.data).type);
  const dec = anthropicCodec.streamDecoder();
  return [...raws.flatMap((r) => dec.push(r)), ...dec.end()];
}

const replay = (name: string, segment = 0): Assembled => assemble(decodeLines(streams(name)[segment]));

// Fields the IR has no slot for (see the codec's header comments).
function withoutLossyFields(block: Wire): Wire {
  const { citations: _c, ...rest } = block;
  if (block.type !== "tool_use") return block.type === "text" ? rest : block;
  const { caller: _caller, ...tool } = block;
  return tool;
}

describe("anthropic golden responses", () => {
  test.each(jsonFiles)("%s decodes every block and re-encodes it unchanged", (name) => {
    const wire = readJson(name);
    const res = anthropicCodec.decodeResponse(wire);
    expect(res.id).toBe(wire.id);
    expect(res.content).toHaveLength(wire.content.length);
    const again = anthropicCodec.encodeResponse(res, { model: wire.model });
    expect(again.content).toEqual(wire.content.map(withoutLossyFields));
    expect(again.usage).toMatchObject({
      input_tokens: wire.usage.input_tokens,
      output_tokens: wire.usage.output_tokens,
      cache_read_input_tokens: wire.usage.cache_read_input_tokens ?? 0,
      cache_creation_input_tokens: wire.usage.cache_creation_input_tokens ?? 0,
    });
    expect(anthropicCodec.decodeResponse(again)).toEqual(res);
  });

  test("text response keeps text, stop reason and usage", () => {
    const res = anthropicCodec.decodeResponse(readJson("anthropic-text.json"));
    expect(res.content).toEqual([
      { type: "text", text: "Hello! I'm doing well, thanks for asking. How are you doing today? Is there anything I can help you with?" },
    ]);
    expect(res.stopReason).toBe("end_turn");
    expect(res.usage).toEqual({ inputTokens: 12, outputTokens: 29, cacheReadTokens: 0, cacheWriteTokens: 0 });
  });

  test("tool call without arguments decodes to an empty input object", () => {
    const res = anthropicCodec.decodeResponse(readJson("anthropic-tool-no-args.json"));
    expect(res.stopReason).toBe("tool_use");
    expect(res.content[1]).toEqual({ type: "tool_use", id: "toolu_01LRmxn9vGM1d2DZSDBowdZ1", name: "updateIssueList", input: {} });
  });

  test("refusals keep the refusal stop reason, with or without details", () => {
    for (const name of ["anthropic-refusal.json", "anthropic-refusal-no-details.json"]) {
      const res = anthropicCodec.decodeResponse(readJson(name));
      expect(res.stopReason).toBe("refusal");
      expect(res.content).toEqual([]);
      expect(res.usage.outputTokens).toBe(5);
    }
  });

  test("thinking blocks keep their signature", () => {
    const wire = readJson("anthropic-clear-thinking.1.json");
    const res = anthropicCodec.decodeResponse(wire);
    const thinking = res.content.find((b) => b.type === "thinking");
    const original = wire.content.find((b: Wire) => b.type === "thinking");
    expect(thinking).toEqual({ type: "thinking", text: original.thinking, signature: original.signature });
    expect(original.signature.length).toBeGreaterThan(20);
  });

  test("server tool blocks stay as opaque anthropic blocks in order", () => {
    const wire = readJson("anthropic-web-search-tool.1.json");
    const res: ChatResponse = anthropicCodec.decodeResponse(wire);
    expect(res.content.slice(0, 2)).toEqual([
      { type: "opaque", format: "anthropic", value: wire.content[0] },
      { type: "opaque", format: "anthropic", value: wire.content[1] },
    ]);
    expect(res.content[2].type).toBe("text");
  });

  test("stop_reason model_context_window_exceeded reads as max_tokens", () => {
    const res = anthropicCodec.decodeResponse({ ...readJson("anthropic-text.json"), stop_reason: "model_context_window_exceeded" });
    expect(res.stopReason).toBe("max_tokens");
  });
});

describe("anthropic golden streams", () => {
  const segments = chunkFiles.flatMap((name) => streams(name).map((lines, i) => ({ label: `${name}#${i}`, lines })));

  test.each(segments.filter((s) => !s.label.startsWith("spliced")))(
    "$label: dense indices, every tool input and text kept, survives re-encoding",
    ({ lines }) => {
      const events = decodeLines(lines);
      const got = assemble(events);
      expect(got.errors).toEqual([]);
      const wire = lines.map((l) => JSON.parse(l));
      const start = wire.find((e) => e.type === "message_start").message;
      expect(got.id).toBe(start.id);

      // Blocks the IR can express, in vendor order, with their concatenated deltas.
      const kept = wire
        .filter((e) => e.type === "content_block_start" && ["text", "tool_use", "thinking", "redacted_thinking"].includes(e.content_block.type))
        .map((e) => {
          const deltas = wire.filter((d) => d.type === "content_block_delta" && d.index === e.index).map((d) => d.delta);
          const joined = (field: string) => deltas.map((d) => d[field] ?? "").join("");
          if (e.content_block.type === "tool_use") {
            const json = joined("partial_json");
            // Programmatic tool calls arrive with their whole input in content_block_start.
            const input = json ? JSON.parse(json) : e.content_block.input;
            return { type: "tool_use", id: e.content_block.id, name: e.content_block.name, input };
          }
          if (e.content_block.type === "thinking") return { type: "thinking", text: joined("thinking"), signature: joined("signature") || undefined };
          if (e.content_block.type === "redacted_thinking") return { type: "redacted_thinking", data: e.content_block.data };
          return { type: "text", text: joined("text") };
        });
      expect(JSON.parse(JSON.stringify(got.blocks))).toEqual(JSON.parse(JSON.stringify(kept)));

      const delta = wire.find((e) => e.type === "message_delta");
      expect(got.stopReason).toBe(delta?.delta.stop_reason ?? "end_turn");
      expect(got.usage?.outputTokens).toBe(delta?.usage.output_tokens ?? start.usage.output_tokens);
      expect(got.usage?.cacheReadTokens).toBe(delta?.usage.cache_read_input_tokens ?? start.usage.cache_read_input_tokens ?? 0);

      const again = assemble(reencode(events));
      expect(again.blocks).toEqual(got.blocks);
      expect(again.usage).toEqual(got.usage);
      expect(again.stopReason).toBe(got.stopReason);
    },
  );

  test("text stream concatenates deltas and reports final usage", () => {
    const got = replay("anthropic-text.chunks.txt");
    expect(got.blocks).toEqual([
      { type: "text", text: "Hello! I'm doing well, thank you for asking. How are you doing today? Is there anything I can help you with?" },
    ]);
    expect(got.usage).toEqual({ inputTokens: 12, outputTokens: 30, cacheReadTokens: 0, cacheWriteTokens: 0 });
    expect(got.model).toBe("claude-sonnet-4-5-20250929");
  });

  test("streamed tool call without arguments parses to {} (empty input_json_delta is not lost)", () => {
    const events = decodeLines(streams("anthropic-tool-no-args.chunks.txt")[0]);
    expect(events).toContainEqual({ type: "tool_args_delta", index: 1, json: "" });
    const got = assemble(events);
    expect(got.blocks[1]).toEqual({ type: "tool_use", id: "toolu_01QE1WLsSVp5hy5Q3GmGTmjP", name: "updateIssueList", input: {} });
    expect(got.stopReason).toBe("tool_use");
  });

  test("streamed thinking keeps text and signature", () => {
    const got = replay("anthropic-clear-thinking.1.chunks.txt");
    expect(got.blocks[0].type).toBe("thinking");
    expect(got.blocks[0].text).toBe("The previous result was 925. Now I need to divide that by 5.\n\n925 ÷ 5 = 185");
    expect(got.blocks[0].signature).toStartWith("EvQBCkYICxgCKkAxhD4NUKFzudtZ6NzbZdEiBACIScTzqjPViM596iWLZIk4EFKYYBj3B6Ptl3b0dcQv");
    expect(got.blocks[1]).toEqual({ type: "text", text: "925 ÷ 5 = 185" });
  });

  test("streamed refusal without content finishes with refusal", () => {
    const got = replay("anthropic-refusal.chunks.txt");
    expect(got.blocks).toEqual([]);
    expect(got.stopReason).toBe("refusal");
    expect(got.usage?.outputTokens).toBe(5);
  });

  test("input tokens reported again in message_delta override message_start", () => {
    const events = decodeLines(streams("anthropic-message-delta-input-tokens.chunks.txt")[0]);
    expect(events[0]).toMatchObject({ type: "start", usage: { inputTokens: 43, outputTokens: 1 } });
    expect(assemble(events).usage).toEqual({ inputTokens: 61, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 });
  });

  test("cache read and write tokens and thinking tokens come from the final message_delta", () => {
    const got = replay("anthropic-code-execution-20260120-prompt-cache.1.chunks.txt");
    expect(got.usage).toEqual({ inputTokens: 6, outputTokens: 198, cacheReadTokens: 6289, cacheWriteTokens: 3337, reasoningTokens: 0 });
  });

  test("server tool blocks are skipped and later blocks renumbered densely", () => {
    const events = decodeLines(streams("anthropic-code-execution-20260120-prompt-cache.1.chunks.txt")[0]);
    // Vendor blocks 0-3 are server tool use/results; vendor block 4 is text.
    expect(events.filter((e) => e.type === "block_start")).toEqual([{ type: "block_start", index: 0, block: { type: "text" } }]);
    expect(events.some((e) => e.type === "tool_args_delta")).toBe(false);
    const fallback = replay("anthropic-fallback.chunks.txt");
    expect(fallback.blocks).toEqual([{ type: "text", text: "The printing press was invented by Johannes Gutenberg around 1440." }]);
  });

  test("a repeated message_start for the same message is ignored", () => {
    const events = decodeLines(streams("duplicate-message-start.chunks.txt")[0]);
    expect(events.filter((e) => e.type === "start")).toHaveLength(1);
    const got = assemble(events);
    expect(got.errors).toEqual([]);
    expect(got.blocks).toEqual([{ type: "text", text: "Hello, World!" }]);
    expect(got.usage).toEqual({ inputTokens: 17, outputTokens: 227, cacheReadTokens: 0, cacheWriteTokens: 0 });
  });

  test("a different message spliced into an open stream is an error, and nothing after it is emitted", () => {
    const events = decodeLines(streams("spliced-message-start.chunks.txt")[0]);
    const got = assemble(events);
    expect(got.id).toBe("msg_first");
    expect(events.at(-1)).toMatchObject({ type: "error", error: { kind: "api_error", status: 502 } });
    expect(got.errors).toHaveLength(1);
    expect(got.errors[0]).toContain("msg_second");
    expect(events.some((e) => e.type === "finish")).toBe(false);
    expect(got.blocks.some((b) => b.id === "toolu_second")).toBe(false);
  });
});
