import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import { startFakeVendor } from "./vendor.ts";
import { parseSse } from "./wire.ts";

const vendor = await startFakeVendor("anthropic");
const client = new Anthropic({ apiKey: "sk-ant-test", baseURL: vendor.url, maxRetries: 0 });
afterAll(() => vendor.close());
beforeEach(() => vendor.reset());

const ask = { model: "claude-test", max_tokens: 100, messages: [{ role: "user" as const, content: "hi" }] };
const rich = {
  thinking: { text: "Let me think about it.", signature: "sig-123" },
  text: "Checking both.",
  toolCalls: [
    { id: "toolu_a", name: "weather", args: { city: "Paris", units: ["C"] } },
    { id: "toolu_b", name: "time", args: { zone: "UTC" } },
  ],
  usage: { input: 20, cacheRead: 300, cacheWrite: 40, output: 60 },
};

describe("anthropic fake, official client", () => {
  test("non-stream text with cache usage (input excludes cache)", async () => {
    vendor.enqueue({ text: "Hello there", usage: { input: 5, cacheRead: 100, cacheWrite: 20, output: 3 } });
    const msg = await client.messages.create(ask);
    expect(msg.type).toBe("message");
    expect(msg.model).toBe("claude-test");
    expect(msg.content).toEqual([{ type: "text", text: "Hello there" } as any]);
    expect(msg.stop_reason).toBe("end_turn");
    expect(msg.usage.input_tokens).toBe(5);
    expect(msg.usage.cache_read_input_tokens).toBe(100);
    expect(msg.usage.cache_creation_input_tokens).toBe(20);
    expect(msg.usage.output_tokens).toBe(3);
    const { authorization, "x-api-key": apiKey } = vendor.requests[0].headers;
    expect(apiKey === "sk-ant-test" || authorization === "Bearer sk-ant-test").toBe(true);
    expect(vendor.requests[0].headers["anthropic-version"]).toBeTruthy();
  });

  test("non-stream thinking and parallel tool use", async () => {
    vendor.enqueue(rich);
    const msg = await client.messages.create(ask);
    expect(msg.stop_reason).toBe("tool_use");
    expect(msg.content.map((b) => b.type)).toEqual(["thinking", "text", "tool_use", "tool_use"]);
    expect(msg.content[0]).toMatchObject({ thinking: "Let me think about it.", signature: "sig-123" });
    expect(msg.content[3]).toMatchObject({ id: "toolu_b", name: "time", input: { zone: "UTC" } });
  });

  test("stream finalMessage rebuilds thinking, text and parallel tool inputs", async () => {
    vendor.enqueue({ ...rich, textChunks: 5 });
    const stream = client.messages.stream(ask);
    const deltas: string[] = [];
    stream.on("text", (t) => deltas.push(t));
    const msg = await stream.finalMessage();
    expect(deltas.length).toBe(5);
    expect(deltas.join("")).toBe("Checking both.");
    expect(msg.content.map((b) => b.type)).toEqual(["thinking", "text", "tool_use", "tool_use"]);
    expect(msg.content[0]).toMatchObject({ thinking: "Let me think about it.", signature: "sig-123" });
    expect(msg.content[2]).toMatchObject({ id: "toolu_a", name: "weather", input: { city: "Paris", units: ["C"] } });
    expect(msg.content[3]).toMatchObject({ id: "toolu_b", input: { zone: "UTC" } });
    expect(msg.stop_reason).toBe("tool_use");
    expect(msg.usage.cache_read_input_tokens).toBe(300);
    expect(msg.usage.output_tokens).toBe(60);
  });

  test("stream wire: event names match payload types, input_json_delta in several fragments, a ping", async () => {
    vendor.enqueue(rich);
    const res = await fetch(`${vendor.url}/v1/messages?beta=true`, {
      method: "POST",
      headers: { authorization: "Bearer tok", "anthropic-version": "2023-06-01", "content-type": "application/json" },
      body: JSON.stringify({ ...ask, stream: true }),
    });
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const events = parseSse(await res.text());
    for (const e of events) expect(JSON.parse(e.data).type).toBe(e.event!);
    expect(events[0].event).toBe("message_start");
    expect(events.at(-1)!.event).toBe("message_stop");
    expect(events.some((e) => e.event === "ping")).toBe(true);
    const jsonDeltas = events.filter((e) => e.data.includes('"input_json_delta"') && JSON.parse(e.data).index === 2);
    expect(jsonDeltas.length).toBeGreaterThan(2);
    expect(events.some((e) => e.data.includes('"signature_delta"'))).toBe(true);
  });

  test("529 overloaded_error in the Anthropic error shape", async () => {
    vendor.enqueue({ status: 529, errorMessage: "Overloaded" });
    const err = (await client.messages.create(ask).catch((e) => e)) as InstanceType<typeof Anthropic.APIError>;
    expect(err).toBeInstanceOf(Anthropic.APIError);
    expect(err.status).toBe(529);
    expect(err.error).toMatchObject({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } });
  });

  test("missing credentials → 401, missing version → 400; both recorded", async () => {
    const post = (headers: Record<string, string>) =>
      fetch(`${vendor.url}/v1/messages`, { method: "POST", headers, body: JSON.stringify(ask) });
    const noKey = await post({ "anthropic-version": "2023-06-01" });
    expect(noKey.status).toBe(401);
    expect(((await noKey.json()) as any).error.type).toBe("authentication_error");
    const noVersion = await post({ "x-api-key": "k" });
    expect(noVersion.status).toBe(400);
    expect(((await noVersion.json()) as any).error.type).toBe("invalid_request_error");
    expect(vendor.requests.length).toBe(2);
  });

  test("count_tokens is deterministic", async () => {
    const params = { model: "claude-test", messages: ask.messages };
    const a = await client.messages.countTokens(params);
    const b = await client.messages.countTokens(params);
    expect(a.input_tokens).toBeGreaterThan(0);
    expect(a.input_tokens).toBe(b.input_tokens);
    expect(a.input_tokens).toBe(Math.ceil(vendor.requests[0].bodyText.length / 4));
  });

  test("unknown path is a 404 not_found_error", async () => {
    const res = await fetch(`${vendor.url}/v1/complete`, { method: "POST", body: "{}" });
    expect(res.status).toBe(404);
    expect(((await res.json()) as any).error.type).toBe("not_found_error");
  });
});
