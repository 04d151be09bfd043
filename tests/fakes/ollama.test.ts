import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { startFakeVendor } from "./vendor.ts";
import { parseNdjson } from "./wire.ts";

const vendor = await startFakeVendor("ollama");
afterAll(() => vendor.close());
beforeEach(() => vendor.reset());

const chat = (extra: Record<string, unknown> = {}) =>
  fetch(`${vendor.url}/api/chat`, {
    method: "POST",
    body: JSON.stringify({ model: "llama-test", messages: [{ role: "user", content: "hi" }], ...extra }),
  });

describe("ollama fake", () => {
  test("streams NDJSON by default; final line has done, done_reason and counts", async () => {
    vendor.enqueue({ text: "one two three", textChunks: 3, usage: { input: 8, cacheRead: 2, output: 6 } });
    const res = await chat();
    expect(res.headers.get("content-type")).toBe("application/x-ndjson");
    const lines = parseNdjson(await res.text());
    expect(lines.length).toBe(4);
    expect(lines.slice(0, -1).every((l) => l.done === false && l.model === "llama-test")).toBe(true);
    expect(lines.map((l) => l.message.content).join("")).toBe("one two three");
    const last = lines.at(-1);
    expect(last).toMatchObject({ done: true, done_reason: "stop", prompt_eval_count: 10, eval_count: 6 });
  });

  test("stream:false gives one object; tool calls carry object arguments", async () => {
    vendor.enqueue({
      thinking: { text: "hmm" },
      toolCalls: [
        { name: "weather", args: { city: "Oslo" } },
        { name: "time", args: {} },
      ],
      stopReason: "length",
    });
    const res = await chat({ stream: false });
    const body = (await res.json()) as any;
    expect(body.done).toBe(true);
    expect(body.done_reason).toBe("length");
    expect(body.message.thinking).toBe("hmm");
    expect(body.message.tool_calls.map((t: any) => t.function)).toEqual([
      { index: 0, name: "weather", arguments: { city: "Oslo" } },
      { index: 1, name: "time", arguments: {} },
    ]);
  });

  test("tags, version, error shape and 404", async () => {
    const tags = (await (await fetch(`${vendor.url}/api/tags`)).json()) as any;
    expect(tags.models[0].name).toContain(":");
    const version = (await (await fetch(`${vendor.url}/api/version`)).json()) as any;
    expect(typeof version.version).toBe("string");
    vendor.enqueue({ status: 404, errorMessage: "model 'x' not found" });
    const missing = await chat();
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: "model 'x' not found" });
    const unknown = await fetch(`${vendor.url}/api/nope`);
    expect(unknown.status).toBe(404);
    expect(typeof ((await unknown.json()) as any).error).toBe("string");
  });
});
