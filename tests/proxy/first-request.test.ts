// The run log's writer thread starts lazily (start-up and CLI commands that never write pay
// nothing), but not so late that the first request waits for it: it starts once a logged
// request's vendor call is under way, rather than when the record is written after the answer.
import { afterEach, expect, test } from "bun:test";
import type { Store } from "../../src/store/types.ts";
import { chatBody, eventually, post, runs, startWorld, type World } from "./world.ts";

let w: World | undefined;
afterEach(async () => {
  await w?.stop();
  w = undefined;
});

/** The store's writer worker, if it runs. */
const writerOf = (store: Store): Worker | undefined =>
  (store as unknown as { thread: { requests?: { worker: Worker } } }).thread.requests?.worker;

test("the first logged request starts the run log's writer thread before its vendor answers", async () => {
  w = await startWorld();
  expect(writerOf(w.relay.relay.store)).toBeUndefined();
  w.openai.enqueue({ text: "late", latencyMs: 400 });
  const answer = post(w.url, "/v1/chat/completions", chatBody("gpt-4o-mini"));
  await eventually(() => w!.openai.requests.length === 1 || undefined, "the vendor's call");
  expect(writerOf(w.relay.relay.store)).toBeDefined();
  const res = await answer;
  expect(res.status).toBe(200);
  expect((await runs(w)).map((r) => r.id)).toEqual([res.headers.get("x-svc-request-id")!]);
});

test("with telemetry off, a request starts no writer thread", async () => {
  w = await startWorld({ config: { telemetry: { enabled: false } } });
  const res = await post(w.url, "/v1/chat/completions", chatBody("gpt-4o-mini"));
  expect(res.status).toBe(200);
  await res.text();
  expect(writerOf(w.relay.relay.store)).toBeUndefined();
});
