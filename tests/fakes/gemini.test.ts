import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { startFakeVendor } from "./vendor.ts";
import { parseSse, readAll } from "./wire.ts";

const vendor = await startFakeVendor("gemini");
afterAll(() => vendor.close());
beforeEach(() => vendor.reset());

const request = { contents: [{ role: "user", parts: [{ text: "hi" }] }] };
const call = (path: string, headers: Record<string, string> = { "x-goog-api-key": "g-key" }) =>
  fetch(`${vendor.url}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(request) });

const reply = {
  thinking: { text: "pondering", signature: "sig-g" },
  text: "Sunny in Paris",
  toolCalls: [
    { name: "weather", args: { city: "Paris" } },
    { name: "time", args: { zone: "CET" } },
  ],
  usage: { input: 10, cacheRead: 30, output: 25, reasoning: 15 },
};

describe("gemini fake", () => {
  test("generateContent: parts, functionCalls, usage with cached tokens inside promptTokenCount", async () => {
    vendor.enqueue(reply);
    const res = await call("/v1beta/models/gemini-test:generateContent");
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    const cand = body.candidates[0];
    expect(cand.finishReason).toBe("STOP");
    expect(cand.content.role).toBe("model");
    expect(cand.content.parts[0]).toEqual({ text: "pondering", thought: true });
    expect(cand.content.parts[1]).toEqual({ text: "Sunny in Paris" });
    expect(cand.content.parts[2]).toEqual({ functionCall: { name: "weather", args: { city: "Paris" } }, thoughtSignature: "sig-g" });
    expect(cand.content.parts[3].functionCall.name).toBe("time");
    expect(body.usageMetadata).toMatchObject({
      promptTokenCount: 40,
      cachedContentTokenCount: 30,
      candidatesTokenCount: 10,
      thoughtsTokenCount: 15,
      totalTokenCount: 65,
    });
    expect(body.modelVersion).toBe("gemini-test");
    expect(vendor.requests[0].headers["x-goog-api-key"]).toBe("g-key");
  });

  test("streamGenerateContent?alt=sse: data frames, finishReason only on the last", async () => {
    vendor.enqueue({ text: "a b c d", textChunks: 4 });
    const res = await call("/v1beta/models/gemini-test:streamGenerateContent?alt=sse");
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const chunks = parseSse(await res.text()).map((e) => JSON.parse(e.data));
    expect(chunks.length).toBe(4);
    expect(chunks.map((c) => c.candidates[0].content.parts[0].text).join("")).toBe("a b c d");
    expect(chunks.slice(0, -1).every((c) => c.candidates[0].finishReason === undefined)).toBe(true);
    expect(chunks.at(-1).candidates[0].finishReason).toBe("STOP");
    expect(chunks.every((c) => c.usageMetadata.promptTokenCount > 0)).toBe(true);
  });

  test("streamGenerateContent without alt=sse streams one JSON array, element by element", async () => {
    vendor.enqueue({ ...reply, textChunks: 2, chunkDelayMs: 5 });
    const res = await call("/v1beta/models/gemini-test:streamGenerateContent");
    expect(res.headers.get("content-type")).toContain("application/json");
    const reads = await readAll(res);
    expect(reads.length).toBeGreaterThan(1);
    const array = JSON.parse(reads.join("")) as any[];
    expect(array.length).toBe(4);
    expect(array[0].candidates[0].content.parts[0].thought).toBe(true);
    expect(array[3].candidates[0].content.parts.map((p: any) => p.functionCall.name)).toEqual(["weather", "time"]);
    expect(array[3].candidates[0].finishReason).toBe("STOP");
  });

  test("key= query parameter is recorded and refused with 400", async () => {
    const res = await call("/v1beta/models/gemini-test:generateContent?key=leaked", {});
    expect(res.status).toBe(400);
    const body = (await res.json()) as any;
    expect(body.error).toMatchObject({ code: 400, status: "INVALID_ARGUMENT" });
    expect(vendor.requests[0].search).toContain("key=leaked");
  });

  test("missing x-goog-api-key is a 403, errors use {error:{code,message,status}}", async () => {
    const res = await call("/v1beta/models/gemini-test:generateContent", {});
    expect(res.status).toBe(403);
    expect(((await res.json()) as any).error.status).toBe("PERMISSION_DENIED");
    vendor.enqueue({ status: 429, errorMessage: "quota" });
    const limited = await call("/v1beta/models/gemini-test:generateContent");
    expect(limited.status).toBe(429);
    expect(await limited.json()).toEqual({ error: { code: 429, message: "quota", status: "RESOURCE_EXHAUSTED" } });
  });

  test("unknown path is a 404 NOT_FOUND", async () => {
    const res = await call("/v1beta/models/gemini-test:embedContent");
    expect(res.status).toBe(404);
    expect(((await res.json()) as any).error.status).toBe("NOT_FOUND");
  });
});
