import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { closedPort, startFakeVendor } from "./vendor.ts";
import { eventually, parseNdjson, parseSse } from "./wire.ts";

const vendor = await startFakeVendor("openai");
afterAll(() => vendor.close());
beforeEach(() => vendor.reset());

const chat = (stream: boolean, signal?: AbortSignal) =>
  fetch(`${vendor.url}/v1/chat/completions`, {
    method: "POST",
    body: JSON.stringify({ model: "m", stream, messages: [{ role: "user", content: "hi" }] }),
    signal,
  });

const longText = "alpha beta gamma delta epsilon zeta eta theta iota kappa";

describe("faults seen from a plain fetch client", () => {
  test("reset-mid-body: non-stream body is cut by a connection reset", async () => {
    vendor.enqueue({ text: longText, fault: "reset-mid-body" });
    const res = await chat(false);
    expect(res.status).toBe(200);
    const err = await res.text().then(
      () => undefined,
      (e) => e,
    );
    expect(err?.code).toBe("ECONNRESET");
  });

  test("reset-mid-body: a stream starts, then the reader fails with a reset", async () => {
    vendor.enqueue({ text: longText, textChunks: 6, fault: "reset-mid-body" });
    const res = await chat(true);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const reader = res.body!.getReader();
    let failure: any;
    try {
      while (!(await reader.read()).done);
    } catch (e) {
      failure = e;
    }
    expect(failure?.code).toBe("ECONNRESET");
    expect(await eventually(() => vendor.openConnections() === 0)).toBe(true);
  });

  test("stop-mid-stream: ends cleanly without finish chunk or [DONE]", async () => {
    vendor.enqueue({ text: longText, textChunks: 6, fault: "stop-mid-stream" });
    const events = parseSse(await (await chat(true)).text());
    expect(events.length).toBeGreaterThan(1);
    expect(events.some((e) => e.data === "[DONE]")).toBe(false);
    expect(events.every((e) => JSON.parse(e.data).choices[0].finish_reason === null)).toBe(true);
  });

  test("never-end: hangs after a few events; aborting the client frees the connection", async () => {
    vendor.enqueue({ text: longText, textChunks: 6, fault: "never-end" });
    const abort = new AbortController();
    const res = await chat(true, abort.signal);
    const reader = res.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain("chat.completion.chunk");
    expect(vendor.openConnections()).toBe(1);
    const pending = reader.read().then(
      () => "ended",
      () => "aborted",
    );
    abort.abort();
    // Reads already buffered may still resolve; the important part is the server side letting go.
    expect(["ended", "aborted"]).toContain(await pending);
    expect(await eventually(() => vendor.openConnections() === 0)).toBe(true);
  });

  test("never-answer: no headers until the client gives up", async () => {
    vendor.enqueue({ fault: "never-answer" });
    const abort = new AbortController();
    const pending = chat(false, abort.signal).then(
      () => "answered",
      (e: Error) => e.name,
    );
    expect(await eventually(() => vendor.openConnections() === 1)).toBe(true);
    abort.abort();
    expect(await pending).toBe("AbortError");
    expect(await eventually(() => vendor.openConnections() === 0)).toBe(true);
  });

  test("malformed-json: 200 with a truncated JSON body", async () => {
    vendor.enqueue({ text: longText, fault: "malformed-json" });
    const res = await chat(false);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toStartWith('{"id":"chatcmpl-');
    expect(() => JSON.parse(text)).toThrow();
  });

  test("malformed-sse: a garbage event among valid ones", async () => {
    vendor.enqueue({ text: longText, fault: "malformed-sse" });
    const events = parseSse(await (await chat(true)).text());
    const broken = events.filter((e) => {
      try {
        if (e.data !== "[DONE]") JSON.parse(e.data);
        return false;
      } catch {
        return true;
      }
    });
    expect(broken.length).toBe(1);
    expect(events.at(-1)!.data).toBe("[DONE]");
  });

  test("huge: about 20 MB, still valid (non-stream and stream)", async () => {
    vendor.enqueue({ fault: "huge" }, { fault: "huge" });
    const body = (await (await chat(false)).json()) as any;
    expect(body.choices[0].message.content.length).toBe(20 * 1024 * 1024);
    const events = parseSse(await (await chat(true)).text());
    const text = events
      .filter((e) => e.data !== "[DONE]")
      .map((e) => JSON.parse(e.data).choices[0].delta.content ?? "")
      .join("");
    expect(text.length).toBe(20 * 1024 * 1024);
  });

  test("latency and extra headers are applied", async () => {
    vendor.enqueue({ text: "late", latencyMs: 30, headers: { "x-ratelimit-remaining-requests": "3" } });
    const res = await chat(false);
    expect(res.headers.get("x-ratelimit-remaining-requests")).toBe("3");
    expect(((await res.json()) as any).choices[0].message.content).toBe("late");
  });

  test("faults apply to other vendors too (ollama NDJSON stop-mid-stream has no done line)", async () => {
    const local = await startFakeVendor("ollama");
    try {
      local.enqueue({ text: longText, textChunks: 6, fault: "stop-mid-stream" });
      const res = await fetch(`${local.url}/api/chat`, { method: "POST", body: JSON.stringify({ model: "m", messages: [] }) });
      const lines = parseNdjson(await res.text());
      expect(lines.length).toBeGreaterThan(0);
      expect(lines.every((l) => l.done === false)).toBe(true);
    } finally {
      await local.close();
    }
  });

  test("close() releases a hanging stream", async () => {
    const local = await startFakeVendor("anthropic");
    local.enqueue({ text: longText, fault: "never-end" });
    const res = await fetch(`${local.url}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": "k", "anthropic-version": "2023-06-01" },
      body: JSON.stringify({ model: "m", stream: true, max_tokens: 5, messages: [] }),
    });
    const reader = res.body!.getReader();
    await reader.read();
    await local.close();
    const outcome = await reader.read().then(
      () => "ended",
      () => "failed",
    );
    expect(["ended", "failed"]).toContain(outcome);
    expect(local.openConnections()).toBe(0);
  });

  test("closedPort refuses connections", async () => {
    const port = await closedPort();
    const err = await fetch(`http://127.0.0.1:${port}/`).then(
      () => undefined,
      (e) => e,
    );
    expect(err?.code).toBe("ECONNREFUSED");
  });
});
