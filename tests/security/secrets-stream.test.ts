// A vendor's error event in the middle of a stream is relayed to the client and
// logged without the key it echoes: translated (Anthropic vendor, OpenAI client)
// and piped (same format, where Relay relays the vendor's own bytes).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startFakeVendor, type FakeVendor } from "../fakes/vendor.ts";
import { startRelay, type TestRelay } from "../helpers/relay.ts";

const KEY = "operator-anthropic-key-Hx72Lq09";
const OPENAI_KEY = "operator-openai-key-Pw51Zr83";
const ADMIN = "stream-test-admin-token-0001";
let vendor: FakeVendor;
let openai: FakeVendor;
let relay: TestRelay;
beforeAll(async () => {
  vendor = await startFakeVendor("anthropic");
  openai = await startFakeVendor("openai");
  relay = await startRelay({
    env: { ANTHROPIC_API_KEY: KEY, OPENAI_API_KEY: OPENAI_KEY },
    config: { adminToken: ADMIN, providers: { anthropic: { baseUrl: vendor.url }, openai: { baseUrl: openai.url } } },
  });
});
afterAll(async () => {
  await relay?.stop();
  await vendor?.close();
  await openai?.close();
});

const start = { type: "message_start", message: { id: "msg_1", type: "message", role: "assistant", model: "claude-haiku-4-5", content: [], stop_reason: null, usage: { input_tokens: 5, output_tokens: 0 } } };
const block = { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } };
const delta = (text: string) => ({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text } });

/** One stream payload that the fake frames with the events after it: they reach Relay in one read. */
const withEvents = (first: object, ...rest: object[]) => [JSON.stringify(first), ...rest.map((e) => `event: ${(e as { type: string }).type}\ndata: ${JSON.stringify(e)}`)].join("\n\n");

/** The client's bytes and the run log hold no secret of `keys`. */
async function expectScrubbed(text: string, ...keys: string[]): Promise<void> {
  const runs = await (await fetch(`${relay.url}/v1/telemetry/runs?limit=5`, { headers: { authorization: `Bearer ${ADMIN}` } })).text();
  for (const where of [text, runs, ...relay.logs]) {
    for (const key of keys) expect(where).not.toContain(key);
    expect(where).not.toContain("ab***yz");
  }
}

test("an error event echoing the operator's key mid-stream reaches the client and the run log scrubbed", async () => {
  const failure = { type: "error", error: { type: "authentication_error", message: `key ${KEY} was revoked; sk-ant-api03-ab***yz` } };
  vendor.enqueue({ raw: { chunks: [start, block, delta("Hello"), failure].map((e) => JSON.stringify(e)) } });
  const res = await fetch(`${relay.url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "claude-haiku-4-5", stream: true, max_tokens: 16, messages: [{ role: "user", content: "hi" }] }),
  });
  const text = await res.text();
  expect(res.status).toBe(200);
  expect(text).toContain("Hello");
  expect(text).toContain("was revoked");
  const runs = await (await fetch(`${relay.url}/v1/telemetry/runs?limit=5`, { headers: { authorization: `Bearer ${ADMIN}` } })).text();
  expect(runs).toContain("was revoked");
  for (const where of [text, runs, ...relay.logs]) {
    expect(where).not.toContain(KEY);
    expect(where).not.toContain("ab***yz");
  }
});

describe("a piped stream's error event echoing a key goes out re-encoded without it", () => {
  const failure = { type: "error", error: { type: "overloaded_error", message: `key ${KEY} is overloaded; sk-ant-api03-ab***yz` } };
  const piped = async () => {
    const res = await fetch(`${relay.url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "claude-haiku-4-5", stream: true, max_tokens: 16, messages: [{ role: "user", content: "hi" }] }),
    });
    expect(res.status).toBe(200);
    return res.text();
  };
  const expectError = (text: string) => {
    // The events before the error are the vendor's own bytes; the error keeps the vendor's type.
    expect(text).toContain(`data: ${JSON.stringify(delta("Hello"))}`);
    expect(text).toContain(`data: ${JSON.stringify(delta(" world"))}`);
    expect(text).toMatch(/event: error\ndata: \{"type":"error","error":\{"type":"overloaded_error","message":"key \S+ is overloaded; \S+"\}\}\n\n/);
  };

  test("after the stream started, in the read that also completes a content event", async () => {
    vendor.enqueue({ chunkDelayMs: 20, raw: { chunks: [JSON.stringify(start), JSON.stringify(block), JSON.stringify(delta("Hello")), withEvents(delta(" world"), failure)] } });
    const text = await piped();
    expectError(text);
    await expectScrubbed(text, KEY);
  });

  test("in the read that primes the stream (one whole answer)", async () => {
    vendor.enqueue({ raw: { chunks: [withEvents(start, block, delta("Hello"), delta(" world"), failure)] } });
    const text = await piped();
    expectError(text);
    await expectScrubbed(text, KEY);
  });

  test("an OpenAI stream chunk carrying an error", async () => {
    const chunk = (content: string) => ({ id: "c1", object: "chat.completion.chunk", created: 1, model: "gpt-4o-mini", choices: [{ index: 0, delta: { content }, finish_reason: null }] });
    const failure = { error: { message: `Incorrect API key provided: ${OPENAI_KEY}, sk-proj-ab***yz`, type: "invalid_request_error", param: null, code: "invalid_api_key" } };
    openai.enqueue({ chunkDelayMs: 20, raw: { chunks: [JSON.stringify(chunk("Hello")), `${JSON.stringify(chunk(" world"))}\n\ndata: ${JSON.stringify(failure)}`] } });
    const res = await fetch(`${relay.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "gpt-4o-mini", stream: true, stream_options: { include_usage: true }, messages: [{ role: "user", content: "hi" }] }),
    });
    const text = await res.text();
    expect(res.status).toBe(200);
    expect(text).toContain(`data: ${JSON.stringify(chunk("Hello"))}`);
    expect(text).toContain(`data: ${JSON.stringify(chunk(" world"))}`);
    expect(text).toMatch(/data: \{"error":\{"message":"Incorrect API key provided: \S+, \S+","type":"invalid_request_error",/);
    expect(text).toEndWith("data: [DONE]\n\n");
    await expectScrubbed(text, OPENAI_KEY);
  });
});
