// Current Claude Code through Relay: a request with mid-conversation system entries, adaptive
// thinking, output_config, context_management and new beta headers reaches the Anthropic vendor as
// the client's own bytes (the model spliced in when Relay picked it), whether sent by the official
// SDK or as raw text; translated for an OpenAI-format vendor, each field gets its equivalent there
// or is reported in the dropped parameters. Only what no vendor could read is refused, in
// Anthropic's error shape.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type Anthropic from "@anthropic-ai/sdk";
import { createRouter } from "../../src/portable.ts";
import { startFakeVendor, type FakeVendor } from "../fakes/vendor.ts";
import { CLAUDE_CODE_BETAS, claudeCodeBody, claudeCodeText } from "../formats/claude-code-body.ts";
import { anthropicClient, anthropicStreamText, post, readStream, startWorld, type World } from "./world.ts";

let w: World;
beforeAll(async () => {
  w = await startWorld();
});
afterAll(() => w.stop());

const lastRequest = (vendor: FakeVendor) => vendor.requests.at(-1)!;

describe("Claude Code on /v1/messages, passed through to Anthropic", () => {
  test("the official SDK's request reaches the vendor as sent, beta headers included", async () => {
    const body = claudeCodeBody();
    const stream = await anthropicClient(w.url).messages.create(body as unknown as Anthropic.MessageCreateParamsStreaming, {
      headers: { "anthropic-beta": CLAUDE_CODE_BETAS },
    });
    let text = "";
    for await (const event of stream) if (event.type === "content_block_delta" && event.delta.type === "text_delta") text += event.delta.text;
    expect(text).toBe("Hello from fake anthropic");
    const received = lastRequest(w.anthropic);
    expect(received.bodyText).toBe(JSON.stringify(body));
    expect(received.headers["anthropic-beta"]).toBe(CLAUDE_CODE_BETAS);
  });

  test("raw bytes go through byte for byte", async () => {
    const raw = claudeCodeText();
    const res = await post(w.url, "/v1/messages", raw, { "x-api-key": "sk-ant-client", "anthropic-version": "2023-06-01", "anthropic-beta": CLAUDE_CODE_BETAS });
    expect(res.status).toBe(200);
    expect(anthropicStreamText((await readStream(res)).text).complete).toBe(true);
    expect(lastRequest(w.anthropic).bodyText).toBe(raw);
  });

  test("when Relay picks the model, only the model value changes", async () => {
    const raw = claudeCodeText("svc:auto");
    const res = await post(w.url, "/v1/messages", raw, { "x-api-key": "sk-ant-client" });
    expect(res.status).toBe(200);
    await readStream(res);
    const routed = res.headers.get("x-svc-routed-model")!;
    expect(routed.startsWith("claude-")).toBe(true);
    expect(lastRequest(w.anthropic).bodyText).toBe(raw.replace('"model": "svc:auto"', `"model":${JSON.stringify(routed)}`));
  });

  test("what no vendor could read is refused with Anthropic's 400, naming the parameter", async () => {
    const before = w.anthropic.requests.length;
    for (const [messages, parameter] of [
      ["hi", "messages"],
      [[{ role: 1, content: "x" }], "messages[0].role"],
    ] as const) {
      const res = await post(w.url, "/v1/messages", { ...claudeCodeBody(), messages }, { "x-api-key": "sk-ant-client" });
      expect(res.status).toBe(400);
      const json = (await res.json()) as any;
      expect(json.type).toBe("error");
      expect(json.error).toMatchObject({ type: "invalid_request_error", details: { parameter } });
    }
    expect(w.anthropic.requests.length).toBe(before);
  });
});

describe("Claude Code's request translated for an OpenAI-format vendor", () => {
  let openai: FakeVendor;
  beforeAll(async () => {
    openai = await startFakeVendor("openai");
  });
  afterAll(() => openai.close());

  test("system entries become system messages in place, adaptive thinking a reasoning effort; the rest is reported dropped", async () => {
    // Only an OpenAI key: the core routes the Anthropic-format call to OpenAI (the proxy's
    // /v1/messages itself serves Anthropic-format providers only, spec §6).
    const router = createRouter({ env: { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${openai.url}/v1` } });
    const raw = claudeCodeText("gpt-5-mini");
    const claudeCodeHeaders = new Headers({ "x-api-key": "sk-ant-client", "anthropic-beta": CLAUDE_CODE_BETAS });
    const result = await router.route({ format: "anthropic", body: JSON.parse(raw), rawBody: raw, caller: { surface: "test", headers: claudeCodeHeaders } });
    await router.close();
    expect(result.kind).toBe("stream");
    if (result.kind !== "stream") return;
    const sse = await new Response(result.body as ReadableStream<Uint8Array>).text();
    expect(anthropicStreamText(sse)).toEqual({ text: "Hello from fake openai", complete: true });

    const sent = lastRequest(openai).json;
    expect(sent.model).toBe("gpt-5-mini");
    expect(sent.messages.map((m: { role: string }) => m.role)).toEqual(["system", "system", "user", "system", "assistant", "tool", "system"]);
    expect(sent.messages[3]).toEqual({ role: "system", content: "Plan mode is off: you may edit files and run commands." });
    expect(sent.reasoning_effort).toBe("medium");
    expect(sent.user).toBe(claudeCodeBody().metadata.user_id);
    expect(sent.context_management).toBeUndefined();
    expect(result.facts.droppedParams).toEqual(["context_management"]);
  });

  // OpenAI answers reasoning_effort on a model that does not reason (gpt-4o-mini) with a 400: the
  // catalog says which models reason, and the setting reaches only those, reported dropped otherwise.
  test("to a model known not to reason, the thinking settings are left out and reported", async () => {
    const router = createRouter({ env: { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${openai.url}/v1` } });
    const raw = claudeCodeText("gpt-4o-mini");
    const result = await router.route({ format: "anthropic", body: JSON.parse(raw), rawBody: raw, caller: { surface: "test", headers: new Headers({ "x-api-key": "sk-ant-client" }) } });
    await router.close();
    expect(result.kind).toBe("stream");
    if (result.kind !== "stream") return;
    await new Response(result.body as ReadableStream<Uint8Array>).text();
    const sent = lastRequest(openai).json;
    expect(sent.model).toBe("gpt-4o-mini");
    expect(sent.reasoning_effort).toBeUndefined();
    expect(result.facts.droppedParams).toEqual(["context_management", "thinking"]);
  });
});
