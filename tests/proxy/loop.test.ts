// Relay marks every vendor call with its install id (x-relay-via) and refuses
// a request that carries its own mark with 508, before any vendor call.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { chatBody, messagesBody, post, runs, startWorld, type World } from "./world.ts";

let w: World;
let mark: string;
beforeAll(async () => {
  w = await startWorld();
  mark = `relay-${readFileSync(join(w.relay.home, "install-id"), "utf8").trim()}`;
});
afterAll(() => w.stop());

describe("loop marks", () => {
  test("every vendor call carries the marks it came with, then this Relay's own", async () => {
    const res = await post(w.url, "/v1/chat/completions", chatBody("gpt-4o-mini"));
    expect(res.status).toBe(200);
    expect(w.openai.requests.at(-1)!.headers["x-relay-via"]).toBe(mark);
    const chained = await post(w.url, "/v1/messages", messagesBody("claude-haiku-4-5"), { "x-relay-via": "relay-upstream" });
    expect(chained.status).toBe(200);
    expect(w.anthropic.requests.at(-1)!.headers["x-relay-via"]).toBe(`relay-upstream, ${mark}`);
    const counted = await post(w.url, "/v1/messages/count_tokens", messagesBody("claude-haiku-4-5"));
    expect(counted.status).toBe(200);
    expect(w.anthropic.requests.at(-1)!.headers["x-relay-via"]).toBe(mark);
  });

  test("a request carrying this Relay's mark is refused with 508 in the client's format, and no vendor is called", async () => {
    const before = w.anthropic.requests.length + w.openai.requests.length;
    const looped = { "x-relay-via": `relay-upstream, ${mark}` };
    const messages = await post(w.url, "/v1/messages", messagesBody("claude-haiku-4-5"), looped);
    expect(messages.status).toBe(508);
    expect(((await messages.json()) as any).type).toBe("error");
    const chat = await post(w.url, "/v1/chat/completions", chatBody("gpt-4o-mini"), looped);
    expect(chat.status).toBe(508);
    expect(((await chat.json()) as any).error.code).toBe("loop_detected");
    const counted = await post(w.url, "/v1/messages/count_tokens", messagesBody("claude-haiku-4-5"), looped);
    expect(counted.status).toBe(508);
    expect(w.anthropic.requests.length + w.openai.requests.length).toBe(before);
    // Refused before the run began: nothing is logged as a vendor call.
    expect((await runs(w)).every((r) => r.status !== 508)).toBe(true);
  });
});
