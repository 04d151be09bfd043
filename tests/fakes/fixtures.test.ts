import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import path from "node:path";
import OpenAI from "openai";
import { recordingsDir } from "./fixtures.ts";
import { startFakeVendor, type FakeVendor } from "./vendor.ts";
import { parseSse } from "./wire.ts";

const vendors: FakeVendor[] = [];
afterAll(() => Promise.all(vendors.map((v) => v.close())));

async function fake(kind: Parameters<typeof startFakeVendor>[0]) {
  const vendor = await startFakeVendor(kind);
  vendors.push(vendor);
  return vendor;
}

function recordedLines(file: string): string[] {
  return readFileSync(path.join(recordingsDir(), file), "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "");
}

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });

describe("replayFixture", () => {
  test("anthropic chunks replay as event:/data: frames named after each payload's type", async () => {
    const vendor = await fake("anthropic");
    const file = "anthropic/anthropic-tool-no-args.chunks.txt";
    vendor.enqueue(vendor.replayFixture(file));
    const res = await post(`${vendor.url}/v1/messages`, { model: "m", stream: true }, { "x-api-key": "k", "anthropic-version": "2023-06-01" });
    const events = parseSse(await res.text());
    expect(events.map((e) => e.data)).toEqual(recordedLines(file));
    expect(events.map((e) => e.event)).toEqual(recordedLines(file).map((l) => JSON.parse(l).type));
  });

  test("openai chunks replay as data: frames plus [DONE], readable by the official client", async () => {
    const vendor = await fake("openai");
    const file = "openai/chat__openai-text.chunks.txt";
    vendor.enqueue(vendor.replayFixture(file));
    const client = new OpenAI({ apiKey: "k", baseURL: `${vendor.url}/v1`, maxRetries: 0 });
    const stream = await client.chat.completions.create({ model: "m", messages: [], stream: true });
    const ids: string[] = [];
    let usageTokens = 0;
    for await (const chunk of stream) {
      ids.push(chunk.id);
      usageTokens = chunk.usage?.prompt_tokens ?? usageTokens;
    }
    expect(ids.length).toBe(recordedLines(file).length);
    expect(usageTokens).toBe(16);
  });

  test("gemini chunks replay as SSE with alt=sse and as a JSON array without", async () => {
    const vendor = await fake("gemini");
    const file = "google/google-text.chunks.txt";
    const url = `${vendor.url}/v1beta/models/gemini-test:streamGenerateContent`;
    const key = { "x-goog-api-key": "g" };
    vendor.enqueue(vendor.replayFixture(file), vendor.replayFixture(file));
    const sse = parseSse(await (await post(`${url}?alt=sse`, {}, key)).text());
    expect(sse.map((e) => e.data)).toEqual(recordedLines(file));
    const array = await (await post(url, {}, key)).json();
    expect(array).toEqual(recordedLines(file).map((l) => JSON.parse(l)));
  });

  test(".json recordings replay byte for byte, with the given status", async () => {
    const vendor = await fake("gemini");
    const file = "google/google-429-retry-info.json";
    vendor.enqueue({ ...vendor.replayFixture(file), status: 429 });
    const res = await post(`${vendor.url}/v1beta/models/g:generateContent`, {}, { "x-goog-api-key": "g" });
    expect(res.status).toBe(429);
    expect(await res.text()).toBe(readFileSync(path.join(recordingsDir(), file), "utf8"));
  });

  test("unknown file kinds are rejected", async () => {
    const vendor = await fake("openai");
    expect(() => vendor.replayFixture("README.md")).toThrow(/not a recording/);
  });
});
