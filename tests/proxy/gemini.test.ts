/**
 * Gemini's routes on the proxy, over raw HTTP: the JSON-array stream Google sends without
 * `alt=sse`, the key from `?key=`, no key at all, Google's error shape for bad input, and the
 * `/models` rule still answering the model list on every other path.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { startFakeVendor, type FakeVendor } from "../fakes/vendor.ts";
import { readAll } from "../fakes/wire.ts";
import { getJson, post, startWorld, type World } from "./world.ts";

const RELAY_GOOGLE_KEY = "AIza-relay-google-5b9e";
const CLIENT_KEY = "AIza-client-query-0d4f";
const GEMINI = "gemini-2.5-flash";
const CLAUDE = "claude-haiku-4-5";
const BODY = { contents: [{ role: "user", parts: [{ text: "hi" }] }] };

let google: FakeVendor;
let world: World;
beforeAll(async () => {
  google = await startFakeVendor("gemini");
  world = await startWorld({ env: { GEMINI_BASE_URL: google.url, GEMINI_API_KEY: RELAY_GOOGLE_KEY } });
});
afterAll(async () => {
  await world.stop();
  await google.close();
});
beforeEach(() => {
  google.reset();
  world.anthropic.reset();
});

const googleCalls = () => google.requests.filter((r) => r.method === "POST");
const errorOf = async (res: Response) => ((await res.json()) as any).error;

describe("the JSON-array stream (no alt=sse)", () => {
  test("from Google: the same array Google sends, element by element", async () => {
    const reply = { text: "a b c", textChunks: 3, chunkDelayMs: 5 };
    google.enqueue(reply, reply);
    const path = `/v1beta/models/${GEMINI}:streamGenerateContent`;
    const headers = { "x-goog-api-key": CLIENT_KEY };
    const direct = await (await post(google.url, path, BODY, headers)).text();
    const res = await post(world.url, path, BODY, headers);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json; charset=UTF-8");
    const reads = await readAll(res);
    expect(reads.length).toBeGreaterThan(1);
    const text = reads.join("");
    // Same framing and elements; only the fake's per-call response id differs.
    const id = (s: string) => s.replaceAll(/"responseId":"[^"]*"/g, '"responseId":"x"');
    expect(id(text)).toBe(id(direct));
    expect(googleCalls()[1]!.search).toBe("?alt=sse");
  });

  test("translated from Anthropic: one JSON array, the finish on its last element", async () => {
    world.anthropic.enqueue({ text: "one two three", textChunks: 3, chunkDelayMs: 5 });
    const res = await post(world.url, `/v1beta/models/${CLAUDE}:streamGenerateContent`, BODY);
    expect(res.headers.get("content-type")).toBe("application/json; charset=UTF-8");
    const array = JSON.parse(await res.text()) as any[];
    expect(array.map((c) => c.candidates[0].content.parts.map((p: any) => p.text).join("")).join("")).toBe("one two three");
    expect(array.at(-1).candidates[0].finishReason).toBe("STOP");
    expect(array.at(-1).usageMetadata.totalTokenCount).toBeGreaterThan(0);
  });

  test("an error before the stream starts stays a JSON error in Google's shape", async () => {
    world.anthropic.enqueue({ status: 400, errorMessage: "bad turn" });
    const res = await post(world.url, `/v1beta/models/${CLAUDE}:streamGenerateContent`, BODY);
    expect(res.status).toBe(400);
    expect(await errorOf(res)).toMatchObject({ code: 400, status: "INVALID_ARGUMENT" });
  });
});

describe("the client's key", () => {
  test("?key= reaches Google as x-goog-api-key, never in a URL nor in Relay's logs", async () => {
    const res = await post(world.url, `/v1beta/models/${GEMINI}:generateContent?key=${CLIENT_KEY}`, BODY);
    expect(res.status).toBe(200);
    const [call] = googleCalls();
    expect(call!.headers["x-goog-api-key"]).toBe(CLIENT_KEY);
    expect(call!.search).not.toContain(CLIENT_KEY);
    expect(world.relay.logs.join("\n")).not.toContain(CLIENT_KEY);
  });

  test("without it, Relay's Google key serves Google's models", async () => {
    await post(world.url, `/v1beta/models/${GEMINI}:generateContent`, BODY);
    expect(googleCalls()[0]!.headers["x-goog-api-key"]).toBe(RELAY_GOOGLE_KEY);
  });

  test("with neither key, other vendors still serve the route; Google's models are refused in Google's shape", async () => {
    const keyless = await startWorld({ env: { GEMINI_BASE_URL: google.url } });
    try {
      const ok = await post(keyless.url, `/v1beta/models/${CLAUDE}:generateContent`, BODY);
      expect(ok.status).toBe(200);
      expect(ok.headers.get("x-svc-provider")).toBe("anthropic");
      const refused = await post(keyless.url, `/v1beta/models/${GEMINI}:generateContent`, BODY);
      // Spec §5.4: a provider key missing from Relay's environment is a 500.
      expect(refused.status).toBe(500);
      expect(await errorOf(refused)).toMatchObject({ code: 500, status: "INTERNAL", message: expect.stringContaining("GEMINI_API_KEY") });
      expect(googleCalls()).toHaveLength(0);
    } finally {
      await keyless.stop();
    }
  });
});

describe("bad input is a 400 in Google's shape", () => {
  const cases: Array<[string, string, string | object, string]> = [
    ["invalid JSON", `/v1beta/models/${GEMINI}:generateContent`, "{not json", "Invalid JSON"],
    ["no contents", `/v1beta/models/${GEMINI}:generateContent`, {}, "contents"],
    ["contents not an array", `/v1beta/models/${CLAUDE}:streamGenerateContent?alt=sse`, { contents: "hi" }, "contents"],
    ["no model", "/v1beta/models/:generateContent", BODY, "Missing model"],
    ["a broken percent-encoding in the model", "/v1beta/models/gem%E0%A4%A:generateContent", BODY, "percent-encoding"],
    ["a control character in the model", "/v1beta/models/gem%07ini:generateContent", BODY, "control characters"],
    ["countTokens without contents", `/v1beta/models/${CLAUDE}:countTokens`, { contents: 3 }, "contents"],
  ];
  for (const [name, path, body, message] of cases) {
    test(name, async () => {
      const res = await post(world.url, path, body);
      expect(res.status).toBe(400);
      const err = await errorOf(res);
      expect(err).toMatchObject({ code: 400, status: "INVALID_ARGUMENT" });
      expect(err.message).toContain(message);
      expect(err.details[0]).toMatchObject({ "@type": "type.googleapis.com/google.rpc.ErrorInfo", domain: "relay" });
      expect(res.headers.get("x-svc-request-id")).toMatch(/^req_/);
      expect(googleCalls()).toHaveLength(0);
    });
  }

  test("a method Relay does not serve is a 404 in Google's shape", async () => {
    const res = await post(world.url, `/v1beta/models/${GEMINI}:embedContent`, BODY);
    expect(res.status).toBe(404);
    expect(await errorOf(res)).toMatchObject({ code: 404, status: "NOT_FOUND" });
  });

  test("a refusal before any route (no JSON content type) is in Google's shape too", async () => {
    const res = await fetch(`${world.url}/v1beta/models/${GEMINI}:generateContent`, { method: "POST", headers: { "content-type": "text/plain" }, body: JSON.stringify(BODY) });
    expect(res.status).toBe(415);
    expect(await errorOf(res)).toMatchObject({ code: 415, message: expect.stringContaining("Content-Type: application/json") });
  });
});

test("a budget's cap on the output lands in generationConfig.maxOutputTokens (Gemini has no top-level field to splice)", async () => {
  const capped = await startWorld({ env: { GEMINI_BASE_URL: google.url, GEMINI_API_KEY: RELAY_GOOGLE_KEY }, config: { limits: { dailyUsd: 0.01 } } });
  try {
    const res = await post(capped.url, `/v1beta/models/${GEMINI}:generateContent`, { ...BODY, generationConfig: { maxOutputTokens: 60000, temperature: 0.2 } });
    expect(res.status).toBe(200);
    const cap = Number(res.headers.get("x-svc-max-tokens-capped"));
    expect(cap).toBeGreaterThan(0);
    expect(cap).toBeLessThan(60000);
    const sent = googleCalls()[0]!;
    expect(sent.json.generationConfig).toEqual({ maxOutputTokens: cap, temperature: 0.2 });
    expect(Object.keys(sent.json)).toEqual(["contents", "generationConfig"]);
  } finally {
    await capped.stop();
  }
});

describe("paths", () => {
  test("the /v1/ form and model names with a slash are served too (matched before the /models rule)", async () => {
    const v1 = await post(world.url, `/v1/models/${CLAUDE}:generateContent`, BODY);
    expect(v1.status).toBe(200);
    expect(((await v1.json()) as any).candidates[0].content.parts[0].text).toBe("Hello from fake anthropic");
    const slashed = await post(world.url, `/v1beta/models/anthropic/${CLAUDE}:generateContent`, BODY);
    expect(slashed.status).toBe(200);
    expect(slashed.headers.get("x-svc-routed-model")).toBe(CLAUDE);
  });

  test("countTokens accepts Google's generateContentRequest form", async () => {
    const res = await post(world.url, `/v1beta/models/${CLAUDE}:countTokens`, { generateContentRequest: { model: `models/${CLAUDE}`, ...BODY } });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-svc-token-count")).toBe("estimate");
    expect(((await res.json()) as any).totalTokens).toBeGreaterThan(0);
  });

  test("every other /models path still answers the model list", async () => {
    for (const path of ["/v1/models", "/v1beta/models", `/v1beta/models/${GEMINI}`, "/openai/v1/models"]) {
      const list = await getJson(world.url, path);
      expect(list.object).toBe("list");
      expect(list.data.some((m: any) => m.id === "svc:auto")).toBe(true);
    }
  });
});
