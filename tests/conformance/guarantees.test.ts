/**
 * Issue 3 cross-cutting guarantees, end to end through a real Relay: key
 * hygiene, missing keys, byte-exact passthrough, vendor error mapping,
 * dropped-parameter reporting, count_tokens, truncated upstream streams and
 * client disconnects.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";
import type { ReceivedRequest, VendorKind } from "../fakes/types.ts";
import { eventually, parseSse } from "../fakes/wire.ts";
import { KEYS, MODELS, VENDOR_KINDS, chatCalls, resetFakes, startWorld, type World } from "./harness.ts";

// Vendor failures below must not cool a provider down for the tests that follow.
const NO_COOLDOWN = { cooldown: { failures: 1000 } };

let world: World;
beforeAll(async () => {
  world = await startWorld({ config: NO_COOLDOWN });
});
afterAll(() => world.stop());
beforeEach(() => resetFakes(world));

const ANTHROPIC_HEADERS = { "content-type": "application/json", "x-api-key": KEYS.clientAnthropic, "anthropic-version": "2023-06-01" };
const OPENAI_HEADERS = { "content-type": "application/json", authorization: `Bearer ${KEYS.clientOpenAI}` };

/** Everything a vendor could have seen of a request, as one searchable string. */
const wireText = (r: ReceivedRequest) => `${r.method} ${r.path}${r.search}\n${JSON.stringify(r.headers)}\n${r.bodyText}`;

async function rejection(p: Promise<unknown>): Promise<any> {
  return p.then(
    () => {
      throw new Error("expected the call to fail");
    },
    (e: unknown) => e,
  );
}

describe("credentials", () => {
  test("the Gemini key travels only in x-goog-api-key, never in the URL", async () => {
    await world.openai.chat.completions.create({ model: MODELS.gemini, messages: [{ role: "user", content: "hi" }] });
    const stream = await world.openai.chat.completions.create({ model: MODELS.gemini, messages: [{ role: "user", content: "hi" }], stream: true });
    for await (const _ of stream) {
      // drain
    }
    const calls = chatCalls(world.fakes.gemini);
    expect(calls).toHaveLength(2);
    for (const r of calls) {
      expect(r.headers["x-goog-api-key"]).toBe(KEYS.gemini);
      expect(new URLSearchParams(r.search).has("key")).toBe(false);
      expect(`${r.path}${r.search}`).not.toContain(KEYS.gemini);
    }
  });

  test("each key reaches only its own vendor", async () => {
    const hi = [{ role: "user" as const, content: "hi" }];
    // The Anthropic SDK's own key, on both the chat and the count_tokens routes.
    await world.anthropic.messages.create({ model: MODELS.anthropic, max_tokens: 16, messages: hi });
    await world.anthropic.messages.countTokens({ model: MODELS.anthropic, messages: hi });
    // The OpenAI SDK reaching every vendor family.
    for (const kind of VENDOR_KINDS) await world.openai.chat.completions.create({ model: MODELS[kind], messages: hi });

    const seen = (kind: VendorKind) => world.fakes[kind].requests.map(wireText).join("\n");
    // Sanity: every fake was called, and Anthropic got the client's own credential.
    for (const kind of VENDOR_KINDS) expect(world.fakes[kind].requests.length).toBeGreaterThan(0);
    expect(chatCalls(world.fakes.anthropic)[0]!.headers["x-api-key"]).toBe(KEYS.clientAnthropic);

    for (const kind of ["openai", "gemini", "ollama"] as const) {
      expect(seen(kind)).not.toContain(KEYS.clientAnthropic);
      expect(seen(kind)).not.toContain(KEYS.anthropic);
    }
    expect(seen("anthropic")).not.toContain(KEYS.openai);
    expect(seen("anthropic")).not.toContain(KEYS.gemini);
    expect(seen("openai")).not.toContain(KEYS.gemini);
    expect(seen("gemini")).not.toContain(KEYS.openai);
    // The key a client uses to talk to Relay is not a vendor key.
    for (const kind of VENDOR_KINDS) expect(seen(kind)).not.toContain(KEYS.clientOpenAI);
  });
});

describe("a provider without a key", () => {
  let keyless: World;
  beforeAll(async () => {
    keyless = await startWorld({ env: { OPENAI_API_KEY: undefined, GEMINI_API_KEY: undefined, ANTHROPIC_API_KEY: undefined } });
  });
  afterAll(() => keyless.stop());

  test.each([
    ["openai", "OPENAI_API_KEY"],
    ["gemini", "GEMINI_API_KEY"],
    ["anthropic", "ANTHROPIC_API_KEY"],
  ] as const)("%s → HTTP 500 Missing %s environment variable", async (kind, variable) => {
    const err = await rejection(keyless.openai.chat.completions.create({ model: MODELS[kind], messages: [{ role: "user", content: "hi" }] }));
    expect(err).toBeInstanceOf(OpenAI.InternalServerError);
    expect(err.status).toBe(500);
    expect(err.message).toContain(`Missing ${variable} environment variable`);
    expect(keyless.fakes[kind].requests).toHaveLength(0);
  });

  test("count_tokens falls back to a local estimate", async () => {
    const res = await fetch(`${keyless.relay.url}/v1/messages/count_tokens`, {
      method: "POST",
      headers: { "content-type": "application/json", "anthropic-version": "2023-06-01" },
      body: JSON.stringify({ model: MODELS.anthropic, messages: [{ role: "user", content: "How many tokens is this sentence?" }] }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-svc-token-count")).toBe("estimate");
    const body = (await res.json()) as { input_tokens: number };
    expect(body.input_tokens).toBeGreaterThan(0);
    expect(keyless.fakes.anthropic.requests).toHaveLength(0);
  });
});

describe("same-format passthrough is byte for byte", () => {
  // Valid JSON no serializer would produce: odd spacing, key order, a tab, an escaped slash.
  const oddBody = (stream: boolean) =>
    `{\n  "messages" :[ {"content":"path a\\/b  ok","role":"user"} ],\n\t"max_tokens":  64 ,"stream": ${stream},"model":"${MODELS.anthropic}" , "metadata": {"user_id":"u-1"}\n}`;

  test("Anthropic: the vendor receives exactly the client's bytes", async () => {
    const raw = oddBody(false);
    const res = await fetch(`${world.relay.url}/v1/messages`, { method: "POST", headers: ANTHROPIC_HEADERS, body: raw });
    expect(res.status).toBe(200);
    expect(chatCalls(world.fakes.anthropic)[0]!.bodyText).toBe(raw);
  });

  test("Anthropic: the client receives exactly the vendor's stream bytes", async () => {
    const recording = world.fakes.anthropic.replayFixture("anthropic/anthropic-text.chunks.txt");
    world.fakes.anthropic.enqueue(recording, recording);
    const direct = await fetch(`${world.fakes.anthropic.url}/v1/messages`, { method: "POST", headers: ANTHROPIC_HEADERS, body: oddBody(true) });
    const vendorBytes = await direct.text();
    const res = await fetch(`${world.relay.url}/v1/messages`, { method: "POST", headers: ANTHROPIC_HEADERS, body: oddBody(true) });
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    expect(await res.text()).toBe(vendorBytes);
    expect(chatCalls(world.fakes.anthropic)[1]!.bodyText).toBe(oddBody(true));
  });

  test("OpenAI: request and stream bytes pass unchanged", async () => {
    const raw = `{"stream":true, "stream_options": {"include_usage":true},\n "model" : "${MODELS.openai}","messages":[{"role":"user","content":"hi"}] }`;
    const recording = world.fakes.openai.replayFixture("openai/chat__openai-text.chunks.txt");
    world.fakes.openai.enqueue(recording, recording);
    const vendorBytes = await (await fetch(`${world.fakes.openai.url}/v1/chat/completions`, { method: "POST", headers: OPENAI_HEADERS, body: raw })).text();
    const res = await fetch(`${world.relay.url}/v1/chat/completions`, { method: "POST", headers: OPENAI_HEADERS, body: raw });
    expect(await res.text()).toBe(vendorBytes);
    expect(chatCalls(world.fakes.openai)[1]!.bodyText).toBe(raw);
  });
});

describe("vendor errors reach the client in its own error shape", () => {
  test("Anthropic 400 through the OpenAI SDK → BadRequestError with the vendor's detail", async () => {
    world.fakes.anthropic.enqueue({ status: 400, errorType: "invalid_request_error", errorMessage: "messages: text content blocks must be non-empty" });
    const err = await rejection(world.openai.chat.completions.create({ model: MODELS.anthropic, messages: [{ role: "user", content: "hi" }] }));
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect(err.status).toBe(400);
    expect(err.message).toContain("Provider error: messages: text content blocks must be non-empty");
    expect(chatCalls(world.fakes.anthropic)).toHaveLength(1);
  });

  test("Gemini 400 through the OpenAI SDK, streaming → BadRequestError", async () => {
    world.fakes.gemini.enqueue({ status: 400, errorMessage: "Invalid JSON payload received." });
    const err = await rejection(
      (async () => {
        const s = await world.openai.chat.completions.create({ model: MODELS.gemini, messages: [{ role: "user", content: "hi" }], stream: true });
        for await (const _ of s) {
          // drain
        }
      })(),
    );
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect(err.message).toContain("Provider error: Invalid JSON payload received.");
  });

  test("OpenAI 429 through the OpenAI SDK → RateLimitError with Retry-After and rate-limit headers", async () => {
    world.fakes.openai.enqueue({
      status: 429,
      errorMessage: "Rate limit reached for requests",
      headers: { "retry-after": "30", "x-ratelimit-remaining-requests": "0", "x-ratelimit-limit-requests": "500" },
    });
    const err = await rejection(world.openai.chat.completions.create({ model: MODELS.openai, messages: [{ role: "user", content: "hi" }] }));
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    expect(err.status).toBe(429);
    expect(err.message).toContain("Provider error: Rate limit reached for requests");
    expect(err.headers.get("retry-after")).toBe("30");
    expect(err.headers.get("x-ratelimit-remaining-requests")).toBe("0");
    expect(err.headers.get("x-ratelimit-limit-requests")).toBe("500");
    // A 30 s wait is above the retry cap: Relay gives up at once rather than sleeping.
    expect(chatCalls(world.fakes.openai)).toHaveLength(1);
  });

  test("Anthropic 429 through the Anthropic SDK → RateLimitError with its headers", async () => {
    world.fakes.anthropic.enqueue({
      status: 429,
      errorType: "rate_limit_error",
      errorMessage: "Number of request tokens has exceeded your per-minute rate limit",
      headers: { "retry-after": "40", "anthropic-ratelimit-requests-remaining": "0" },
    });
    const err = await rejection(world.anthropic.messages.create({ model: MODELS.anthropic, max_tokens: 16, messages: [{ role: "user", content: "hi" }] }));
    expect(err).toBeInstanceOf(Anthropic.RateLimitError);
    expect(err.status).toBe(429);
    expect(err.message).toContain("Number of request tokens has exceeded your per-minute rate limit");
    expect(err.error?.type).toBe("error");
    expect(err.error?.error?.type).toBe("rate_limit_error");
    expect(err.headers.get("retry-after")).toBe("40");
    expect(err.headers.get("anthropic-ratelimit-requests-remaining")).toBe("0");
  });
});

describe("parameters a vendor cannot honour", () => {
  test.each([false, true])("are dropped and listed in x-svc-dropped-params (stream: %p)", async (stream) => {
    const { response } = await world.openai.chat.completions
      .create({ model: MODELS.anthropic, messages: [{ role: "user", content: "hi" }], seed: 7, presence_penalty: 0.5, stream })
      .withResponse();
    const dropped = (response.headers.get("x-svc-dropped-params") ?? "").split(",");
    expect(dropped).toContain("seed");
    expect(dropped).toContain("presence_penalty");
    const sent = chatCalls(world.fakes.anthropic)[0]!.json;
    expect(sent.seed).toBeUndefined();
    expect(sent.presence_penalty).toBeUndefined();
  });

  test("nothing is listed when the vendor honours everything", async () => {
    const { response } = await world.openai.chat.completions
      .create({ model: MODELS.openai, messages: [{ role: "user", content: "hi" }], seed: 7, presence_penalty: 0.5 })
      .withResponse();
    expect(response.headers.get("x-svc-dropped-params")).toBeNull();
    expect(chatCalls(world.fakes.openai)[0]!.json).toMatchObject({ seed: 7, presence_penalty: 0.5 });
  });
});

test("count_tokens passes through to Anthropic when a key exists", async () => {
  const body = `{"model":"${MODELS.anthropic}",  "messages":[{"role":"user","content":"count me"}]}`;
  const res = await fetch(`${world.relay.url}/v1/messages/count_tokens`, { method: "POST", headers: ANTHROPIC_HEADERS, body });
  expect(res.status).toBe(200);
  expect(res.headers.get("x-svc-token-count")).toBe("vendor");
  const [call] = world.fakes.anthropic.requests;
  expect(call!.path).toBe("/v1/messages/count_tokens");
  expect(call!.bodyText).toBe(body);
  // The fake counts ceil(bytes / 4): the answer is the vendor's, not an estimate.
  expect(await res.json()).toEqual({ input_tokens: Math.ceil(body.length / 4) });

  const viaSdk = await world.anthropic.messages.countTokens({ model: MODELS.anthropic, messages: [{ role: "user", content: "count me" }] });
  expect(viaSdk.input_tokens).toBe(Math.ceil(world.fakes.anthropic.requests[1]!.bodyText.length / 4));
});

// ---- upstream failures mid-stream -------------------------------------------

const FAULTS = ["stop-mid-stream", "reset-mid-body"] as const;
const LONG_TEXT = "one two three four five six seven eight nine ten eleven twelve";

describe.each(VENDOR_KINDS.flatMap((vendor) => FAULTS.map((fault) => ({ vendor, fault }))))("OpenAI client, $vendor vendor dies mid-stream ($fault)", ({ vendor, fault }) => {
  test("the stream ends with a well-formed OpenAI error chunk and the SDK throws", async () => {
    const fake = world.fakes[vendor];
    fake.enqueue({ text: LONG_TEXT, textChunks: 8, fault }, { text: LONG_TEXT, textChunks: 8, fault });

    const res = await fetch(`${world.relay.url}/v1/chat/completions`, {
      method: "POST",
      headers: OPENAI_HEADERS,
      body: JSON.stringify({ model: MODELS[vendor], messages: [{ role: "user", content: "count" }], stream: true, stream_options: { include_usage: true } }),
    });
    expect(res.status).toBe(200);
    const events = parseSse(await res.text()).filter((e) => e.data !== "[DONE]");
    const payloads = events.map((e) => JSON.parse(e.data));
    // Some content got through before the cut, and no chunk claims a normal finish.
    expect(payloads.some((p) => p.choices?.[0]?.delta?.content)).toBe(true);
    expect(payloads.some((p) => p.choices?.[0]?.finish_reason)).toBe(false);
    expect(payloads.at(-1).error).toMatchObject({ message: expect.any(String) });

    const err = await rejection(
      (async () => {
        const s = await world.openai.chat.completions.create({ model: MODELS[vendor], messages: [{ role: "user", content: "count" }], stream: true });
        for await (const _ of s) {
          // drain
        }
      })(),
    );
    expect(err).toBeInstanceOf(OpenAI.APIError);
  });
});

describe.each(FAULTS)("Anthropic client, anthropic vendor dies mid-stream (%s)", (fault) => {
  test("the stream ends with an Anthropic error event and the SDK throws", async () => {
    world.fakes.anthropic.enqueue({ text: LONG_TEXT, textChunks: 8, fault }, { text: LONG_TEXT, textChunks: 8, fault });
    const res = await fetch(`${world.relay.url}/v1/messages`, {
      method: "POST",
      headers: ANTHROPIC_HEADERS,
      body: JSON.stringify({ model: MODELS.anthropic, max_tokens: 64, messages: [{ role: "user", content: "count" }], stream: true }),
    });
    const events = parseSse(await res.text());
    expect(events.some((e) => e.event === "content_block_delta")).toBe(true);
    expect(events.some((e) => e.event === "message_stop")).toBe(false);
    const last = events.at(-1)!;
    expect(last.event).toBe("error");
    expect(JSON.parse(last.data)).toMatchObject({ type: "error", error: { type: expect.any(String), message: expect.any(String) } });

    const err = await rejection(world.anthropic.messages.stream({ model: MODELS.anthropic, max_tokens: 64, messages: [{ role: "user", content: "count" }] }).finalMessage());
    expect(err).toBeInstanceOf(Error);
  });
});

// ---- client disconnect -------------------------------------------------------

describe.each(VENDOR_KINDS)("client disconnects mid-stream from a %s vendor", (vendor) => {
  test("the upstream request is aborted", async () => {
    const fake = world.fakes[vendor];
    fake.enqueue({ text: LONG_TEXT, textChunks: 4, fault: "never-end" });
    const ac = new AbortController();
    const res = await fetch(`${world.relay.url}/v1/chat/completions`, {
      method: "POST",
      headers: OPENAI_HEADERS,
      body: JSON.stringify({ model: MODELS[vendor], messages: [{ role: "user", content: "hang" }], stream: true }),
      signal: ac.signal,
    });
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(first.done).toBe(false);
    expect(fake.openConnections()).toBe(1);
    ac.abort();
    await reader.cancel().catch(() => {});
    expect(await eventually(() => fake.openConnections() === 0)).toBe(true);
  });
});
