// Spec §7.2: every proxy error row, with its exact status and message, plus the
// URL-substring routes of §4.2 rule 1. (429 rate/budget and 503 cooldown rows
// need a clock and traffic: they live in guards.test.ts.)
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { NOT_FOUND_MESSAGE } from "../../src/surfaces/app.ts";
import { anthropicClient, chatBody, errorOf, messagesBody, openaiClient, post, startWorld, type World } from "./world.ts";

const LIMIT = 10 * 1024 * 1024;

let w: World;
beforeAll(async () => {
  w = await startWorld({
    config: {
      // High threshold: the vendor failures scripted here must not cool a provider down.
      cooldown: { failures: 100 },
      routing: { strategies: { cascade: { chain: ["claude-haiku-4-5", "claude-sonnet-4-5"], maxEscalations: 2 } } },
    },
  });
});
afterAll(() => w.stop());


describe("400 rows", () => {
  test("Invalid JSON on both chat routes", async () => {
    for (const path of ["/v1/chat/completions", "/v1/messages"]) {
      const res = await post(w.url, path, "{not json", { "x-api-key": "k" });
      expect(res.status).toBe(400);
      expect((await errorOf(res)).message).toBe("Invalid JSON");
    }
  });

  test("Missing model in request", async () => {
    const res = await post(w.url, "/v1/chat/completions", { messages: [{ role: "user", content: "hi" }] });
    expect(res.status).toBe(400);
    const err = await errorOf(res);
    expect(err.message).toBe("Missing model in request");
    expect(err.details.parameter).toBe("model");
  });

  test("Missing or invalid messages array in request (missing, and not an array)", async () => {
    for (const messages of [undefined, "hello"]) {
      const res = await post(w.url, "/v1/chat/completions", { model: "gpt-4o-mini", messages });
      expect(res.status).toBe(400);
      expect((await errorOf(res)).message).toBe("Missing or invalid messages array in request");
    }
  });

  test("Model not found carries suggestions of similar names", async () => {
    // A name no provider's pattern claims (a gpt-* typo goes to OpenAI: tests/proxy/newer-models.test.ts).
    const res = await post(w.url, "/v1/chat/completions", chatBody("4o-minii"));
    expect(res.status).toBe(400);
    const body = (await res.json()) as any;
    expect(body.error.message).toBe("Model not found");
    expect(body.suggestions).toContain("4o-mini");
  });

  test("a non-Anthropic model on /v1/messages is refused", async () => {
    const res = await post(w.url, "/v1/messages", messagesBody("gpt-4o-mini"), { "x-api-key": "k" });
    expect(res.status).toBe(400);
    expect((await errorOf(res)).message.startsWith("Native /v1/messages only supports Anthropic models")).toBe(true);
    expect(w.openai.requests).toHaveLength(0);
  });
});

describe("401 and 500 credential rows", () => {
  let bare: World;
  beforeAll(async () => {
    bare = await startWorld({ withoutKeys: ["ANTHROPIC_API_KEY", "OPENAI_API_KEY"] });
  });
  afterAll(() => bare.stop());

  test("401 Missing Anthropic authentication without x-api-key, Authorization or ANTHROPIC_API_KEY", async () => {
    const res = await post(bare.url, "/v1/messages", messagesBody("claude-haiku-4-5"));
    expect(res.status).toBe(401);
    expect((await errorOf(res)).message).toBe("Missing Anthropic authentication");
    expect(bare.anthropic.requests).toHaveLength(0);
  });

  test("the client's own Authorization: Bearer is enough on /v1/messages", async () => {
    const res = await post(bare.url, "/v1/messages", messagesBody("claude-haiku-4-5"), { authorization: "Bearer sk-ant-mine" });
    expect(res.status).toBe(200);
    expect(bare.anthropic.requests.at(-1)!.headers["x-api-key"] ?? bare.anthropic.requests.at(-1)!.headers.authorization).toContain("sk-ant-mine");
  });

  test("500 Missing OPENAI_API_KEY environment variable", async () => {
    const res = await post(bare.url, "/v1/chat/completions", chatBody("gpt-4o-mini"));
    expect(res.status).toBe(500);
    expect((await errorOf(res)).message).toBe("Missing OPENAI_API_KEY environment variable");
    expect(bare.openai.requests).toHaveLength(0);
  });
});

describe("vendor failure rows", () => {
  test("Provider error: <detail> with the vendor's status", async () => {
    w.anthropic.enqueue({ status: 500, errorMessage: "the fake vendor broke" });
    const res = await post(w.url, "/v1/chat/completions", chatBody("claude-haiku-4-5"));
    expect(res.status).toBe(500);
    expect((await errorOf(res)).message).toBe("Provider error: the fake vendor broke");
  });

  test("the OpenAI SDK sees a vendor error as an APIError with the message", async () => {
    w.openai.enqueue({ status: 503, errorMessage: "upstream unavailable" });
    const err = await openaiClient(w.url).chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "Say hi" }] }).catch((e) => e);
    expect(err).toBeInstanceOf(Error);
    expect(err.status).toBe(503);
    expect(err.message).toContain("Provider error: upstream unavailable");
  });

  test("All cascade models exhausted when every chain model fails", async () => {
    const before = w.anthropic.requests.length;
    w.anthropic.enqueue({ status: 500 }, { status: 500 });
    const res = await post(w.url, "/v1/chat/completions", chatBody("svc:cascade"));
    expect(res.status).toBe(500);
    expect((await errorOf(res)).message).toBe("All cascade models exhausted");
    expect(w.anthropic.requests.slice(before).map((r) => r.json.model)).toEqual(["claude-haiku-4-5", "claude-sonnet-4-5"]);
  });
});

describe("500 Request body too large", () => {
  /** Send headers declaring `declared` bytes and only a few of them; resolve with the raw response. */
  function declareHugeBody(path: string, declared: number): Promise<string> {
    const { hostname, port } = new URL(w.url);
    return new Promise((resolve, reject) => {
      let text = "";
      const socket = connect({ host: hostname, port: Number(port) }, () => {
        socket.write(`POST ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nContent-Type: application/json\r\nx-api-key: k\r\nContent-Length: ${declared}\r\n\r\n{"model":"`);
      });
      socket.on("data", (d) => {
        text += d.toString();
        if (text.includes("Request body too large")) {
          socket.destroy();
          resolve(text);
        }
      });
      socket.on("error", reject);
      socket.on("close", () => resolve(text));
    });
  }

  test("a declared Content-Length over 10 MB is refused before the body is sent", async () => {
    for (const path of ["/v1/chat/completions", "/v1/messages"]) {
      const raw = await declareHugeBody(path, LIMIT + 1);
      expect(raw.startsWith("HTTP/1.1 500")).toBe(true);
      expect(raw).toContain("Request body too large");
    }
  });

  test("a chunked body is refused once it passes 10 MB, without Relay reading the rest", async () => {
    const total = 64 * 1024 * 1024;
    const piece = new Uint8Array(64 * 1024).fill(0x61);
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          if (pulled >= total) return controller.close();
          controller.enqueue(pulled === 0 ? new TextEncoder().encode('{"model":"gpt-4o-mini","pad":"') : piece);
          pulled += pulled === 0 ? 30 : piece.byteLength;
        },
      },
      { highWaterMark: 0 },
    );
    const res = await fetch(`${w.url}/v1/chat/completions`, { method: "POST", body, headers: { "content-type": "application/json" } });
    const pulledAtResponse = pulled;
    expect(res.status).toBe(500);
    expect((await errorOf(res)).message).toBe("Request body too large");
    expect(pulledAtResponse).toBeGreaterThan(LIMIT);
    expect(pulledAtResponse).toBeLessThan(total / 2);
    await body.cancel().catch(() => {});
  });
});

describe("routes", () => {
  test("404 for an unknown route lists the core endpoints", async () => {
    const res = await fetch(`${w.url}/v2/nothing-here`);
    expect(res.status).toBe(404);
    const message = (await errorOf(res)).message as string;
    expect(message).toBe(NOT_FOUND_MESSAGE);
    for (const ep of ["POST /v1/messages", "POST /v1/chat/completions", "GET /v1/models"]) expect(message).toContain(ep);
  });

  test("any path containing /chat/completions is the chat route", async () => {
    const res = await post(w.url, "/openai/v1/chat/completions", chatBody("gpt-4o-mini"));
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).choices[0].message.content).toBe("Hello from fake openai");
  });

  test("any GET path containing /models lists the models", async () => {
    const res = await fetch(`${w.url}/foo/models`);
    expect(res.status).toBe(200);
    const ids = ((await res.json()) as any).data.map((m: { id: string }) => m.id);
    expect(ids).toContain("svc:auto");
    expect(ids).toContain("gpt-4o-mini");
  });

  test("/v1/messages?beta=true is served (the Anthropic SDK's beta calls)", async () => {
    const res = await post(w.url, "/v1/messages?beta=true", messagesBody("claude-haiku-4-5"), { "x-api-key": "k", "anthropic-version": "2023-06-01" });
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).content[0].text).toBe("Hello from fake anthropic");
  });

  test("the Anthropic SDK's beta client works through Relay", async () => {
    const msg = await anthropicClient(w.url).beta.messages.create({ model: "claude-haiku-4-5", max_tokens: 64, messages: [{ role: "user", content: "Say hi" }] });
    expect((msg.content[0] as { text: string }).text).toBe("Hello from fake anthropic");
  });
});
