// A current Claude Code request through every codec: the Anthropic decoder is never stricter than
// Anthropic (mid-conversation system entries, adaptive thinking, output_config, context_management,
// roles and types it does not know), the Anthropic encoder gives back what the client wrote, and
// the other formats get each field's nearest equivalent or report it dropped.
import { describe, expect, test } from "bun:test";
import { anthropicCodec } from "../../src/core/formats/anthropic/index.ts";
import { geminiCodec } from "../../src/core/formats/gemini/index.ts";
import { ollamaCodec } from "../../src/core/formats/ollama/index.ts";
import { openaiCodec } from "../../src/core/formats/openai/index.ts";
import { CodecError, type Codec } from "../../src/core/formats/types.ts";
import type { ChatRequest } from "../../src/core/ir.ts";
import { claudeCodeBody } from "./claude-code-body.ts";

const wire = claudeCodeBody();
const ir = anthropicCodec.decodeRequest(wire);

/** As the router translates: unmapped client parameters go only to a vendor of the same format, else they are reported. */
function translate(codec: Codec, req: ChatRequest = ir) {
  const { body, dropped } = codec.encodeRequest({ ...req, extra: undefined }, { model: "vendor-model" });
  return { body: body as Record<string, any>, dropped: [...Object.keys(req.extra ?? {}), ...dropped] };
}

const decodeError = (body: unknown): CodecError => {
  try {
    anthropicCodec.decodeRequest(body);
  } catch (e) {
    if (e instanceof CodecError) return e;
    throw e;
  }
  throw new Error("expected a CodecError");
};

describe("decoding a Claude Code request", () => {
  test("system entries stay in place as IR messages of role system", () => {
    expect(ir.messages.map((m) => m.role)).toEqual(["user", "system", "assistant", "user", "system"]);
    expect(ir.messages[1].content).toEqual([{ type: "text", text: "Plan mode is off: you may edit files and run commands." }]);
    expect(ir.messages[4].content).toEqual([{ type: "text", text: "The user's working directory changed to /repo/src." }]);
  });

  test("adaptive thinking and its effort are IR reasoning; only what no field holds is extra", () => {
    expect(ir.reasoning).toEqual({ adaptive: true, effort: "medium" });
    expect(ir.user).toBe(wire.metadata.user_id);
    expect(ir.system?.map((b) => b.cacheControl)).toEqual([{ type: "ephemeral" }, { type: "ephemeral", ttl: "1h" }]);
    expect(ir.extra).toEqual({ context_management: wire.context_management });
  });

  test("adaptive thinking without an effort means Anthropic's default, high; an effort beyond the IR's scale reads as high and stays verbatim", () => {
    expect(anthropicCodec.decodeRequest({ ...wire, output_config: undefined }).reasoning).toEqual({ adaptive: true, effort: "high" });
    const max = anthropicCodec.decodeRequest({ ...wire, output_config: { effort: "max" } });
    expect(max.reasoning).toEqual({ adaptive: true, effort: "high" });
    expect(max.extra?.output_config).toEqual({ effort: "max" });
    // Without adaptive thinking, effort bounds all output: no reasoning to map it to.
    const plain = anthropicCodec.decodeRequest({ ...wire, thinking: undefined });
    expect(plain.reasoning).toBeUndefined();
    expect(plain.extra?.output_config).toEqual({ effort: "medium" });
  });

  test("roles, types and settings the IR does not know are kept, not refused", () => {
    const body = {
      ...wire,
      messages: [...wire.messages, { role: "observer", content: "a future role" }],
      thinking: { type: "adaptive", display: "omitted" },
      tool_choice: { type: "auto_strict_2099" },
      output_config: { effort: "medium", format: { type: "grammar", grammar: "root ::= x" } },
      output_format: { type: "regex", pattern: "x+" },
      metadata: { user_id: "u", trace: "t-1" },
      system: [{ type: "text", text: "s", cache_control: { type: "persistent_2099" } }],
    };
    const req = anthropicCodec.decodeRequest(body);
    expect(req.messages.at(-1)).toEqual({ role: "user", content: [], verbatim: { type: "opaque", format: "anthropic", value: body.messages.at(-1) } });
    expect(req.reasoning).toEqual({ adaptive: true, effort: "medium" });
    expect(req.extra).toEqual({
      context_management: wire.context_management,
      thinking: body.thinking,
      output_config: { format: body.output_config.format },
      output_format: body.output_format,
      tool_choice: body.tool_choice,
      metadata: body.metadata,
    });
    expect(req.system).toEqual([{ type: "text", text: "s" }]);
  });

  test("refused only where no vendor could read the request, naming the parameter", () => {
    expect(decodeError({ ...wire, messages: "hi" })).toMatchObject({ parameter: "messages", expected: "array" });
    expect(decodeError({ ...wire, messages: [{ role: null, content: "x" }] })).toMatchObject({ parameter: "messages[0].role", expected: "string" });
    expect(decodeError({ ...wire, messages: [{ role: "system", content: 5 }] })).toMatchObject({ parameter: "messages[0].content", expected: "array" });
    expect(decodeError({ ...wire, thinking: { display: "omitted" } })).toMatchObject({ parameter: "thinking.type", expected: "string" });
  });
});

describe("encoding it back for Anthropic", () => {
  const { body, dropped } = anthropicCodec.encodeRequest(ir, { model: "claude-opus-5-5" });

  test("gives back the client's fields, system entries in place", () => {
    expect(dropped).toEqual([]);
    expect(body).toMatchObject({
      model: wire.model,
      max_tokens: wire.max_tokens,
      system: wire.system,
      tools: wire.tools,
      metadata: wire.metadata,
      thinking: wire.thinking,
      output_config: wire.output_config,
      context_management: wire.context_management,
      stream: true,
    });
    const messages = body.messages as Array<Record<string, unknown>>;
    expect(messages.map((m) => m.role)).toEqual(["user", "system", "assistant", "user", "system"]);
    expect(messages[1]).toEqual({ role: "system", content: [{ type: "text", text: wire.messages[1].content as string }] });
    expect(messages[2]).toEqual(wire.messages[2]);
    expect(anthropicCodec.decodeRequest(body)).toEqual({ ...ir, model: "claude-opus-5-5" });
  });

  test("an entry of an unknown role goes back as it came; adaptive thinking with settings stays verbatim, its effort beside it", () => {
    const observer = { role: "observer", content: "x" };
    const req = anthropicCodec.decodeRequest({ ...wire, messages: [...wire.messages, observer], thinking: { type: "adaptive", display: "omitted" }, output_config: { effort: "low" } });
    const out = anthropicCodec.encodeRequest(req, { model: "m" }).body;
    expect((out.messages as unknown[]).at(-1)).toEqual(observer);
    expect(out.thinking).toEqual({ type: "adaptive", display: "omitted" });
    expect(out.output_config).toEqual({ effort: "low" });
  });

  test("a translated conversation never merges a system entry into the turns around it", () => {
    const req: ChatRequest = {
      model: "m",
      stream: false,
      messages: [
        { role: "user", content: [{ type: "text", text: "a" }] },
        { role: "system", content: [{ type: "text", text: "b" }] },
        { role: "system", content: [{ type: "text", text: "c" }] },
        { role: "user", content: [{ type: "text", text: "d" }] },
      ],
    };
    const out = anthropicCodec.encodeRequest(req, { model: "m" }).body.messages as Array<{ role: string }>;
    expect(out.map((m) => m.role)).toEqual(["user", "system", "system", "user"]);
  });
});

describe("translating it for other vendors", () => {
  test("OpenAI chat: system entries become system messages in place, adaptive thinking a reasoning effort", () => {
    const { body, dropped } = translate(openaiCodec);
    expect(body.messages.map((m: any) => m.role)).toEqual(["system", "system", "user", "system", "assistant", "tool", "system"]);
    expect(body.messages[3]).toEqual({ role: "system", content: "Plan mode is off: you may edit files and run commands." });
    expect(body.messages[6]).toEqual({ role: "system", content: "The user's working directory changed to /repo/src." });
    expect(body.messages[4].tool_calls[0]).toMatchObject({ id: "toolu_01A09q90qw90lq917835lq9", function: { name: "Read" } });
    expect(body.reasoning_effort).toBe("medium");
    expect(body.user).toBe(wire.metadata.user_id);
    expect(body.tools.map((t: any) => t.function.name)).toEqual(["Read", "Edit"]);
    expect(dropped).toEqual(["context_management"]);
  });

  test("Gemini: a leading system entry joins systemInstruction, a later one is a user note in place", () => {
    const leading = anthropicCodec.decodeRequest({ ...wire, messages: [{ role: "system", content: "first" }, ...wire.messages] });
    const { body, dropped } = translate(geminiCodec, leading);
    expect(body.systemInstruction.parts.map((p: any) => p.text)).toEqual([wire.system[0].text, wire.system[1].text, "first"]);
    expect(body.contents.map((c: any) => c.role)).toEqual(["user", "user", "model", "user", "user"]);
    expect(body.contents[1].parts).toEqual([{ text: "System instruction:\nPlan mode is off: you may edit files and run commands." }]);
    expect(body.generationConfig.thinkingConfig.thinkingBudget).toBeGreaterThan(0);
    expect(dropped).toEqual(["context_management", "user"]);
  });

  test("Ollama: system entries stay system messages in place, adaptive thinking a think level", () => {
    const { body, dropped } = translate(ollamaCodec);
    expect(body.messages.map((m: any) => m.role)).toEqual(["system", "user", "system", "assistant", "tool", "system"]);
    expect(body.messages[2].content).toBe("Plan mode is off: you may edit files and run commands.");
    expect(body.think).toBe("medium");
    expect(dropped).toEqual(["context_management", "user"]);
  });

  test("an entry of an unknown role is left out and reported by every other format", () => {
    const req = anthropicCodec.decodeRequest({ ...wire, messages: [...wire.messages, { role: "observer", content: "x" }] });
    for (const codec of [openaiCodec, geminiCodec, ollamaCodec]) {
      const { body, dropped } = translate(codec, req);
      expect(JSON.stringify(body)).not.toContain("observer");
      expect(dropped).toContain("messages[5] (an entry of an unknown role)");
    }
  });

  test("non-text content in a system entry is reported, its text kept", () => {
    const req = anthropicCodec.decodeRequest({
      ...wire,
      messages: [{ role: "user", content: "q" }, { role: "system", content: [{ type: "text", text: "t" }, { type: "image", source: { type: "url", url: "https://x/y.png" } }] }],
    });
    for (const codec of [openaiCodec, geminiCodec, ollamaCodec]) {
      const { body, dropped } = translate(codec, req);
      expect(JSON.stringify(body)).toMatch(/"(System instruction:\\n)?t"/);
      expect(dropped).toContain("messages[1].content[1] (image in a system message)");
    }
  });
});
