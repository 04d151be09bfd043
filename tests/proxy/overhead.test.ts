// x-svc-overhead-ms is Relay's own time, the same figure the run record holds. A stream that
// arrives whole is answered after its run is logged; the wait for the log's acknowledgement is
// not overhead, as it is not for an unstreamed answer, whose headers are built before it.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { chatBody, post, runs, startWorld, type World } from "./world.ts";

/** Each run-log batch takes this long to acknowledge (a slow disk), far above any real overhead here. */
const SLOW_ACK_MS = 150;

let w: World;
beforeAll(async () => {
  w = await startWorld();
  // Warm: the first answer loads the price data, which is not what is measured here.
  await (await post(w.url, "/v1/chat/completions", chatBody("gpt-4o-mini"))).text();
  const log = w.relay.relay.store.runs;
  const insert = log.insertRuns.bind(log);
  log.insertRuns = async (records) => {
    await Bun.sleep(SLOW_ACK_MS);
    return insert(records);
  };
});
afterAll(() => w.stop());

async function overheadOf(res: Response): Promise<{ header: number; logged: number }> {
  expect(res.status).toBe(200);
  await res.text();
  const id = res.headers.get("x-svc-request-id")!;
  const run = (await runs(w)).find((r) => r.id === id)!;
  return { header: Number(res.headers.get("x-svc-overhead-ms")), logged: run.overheadMs };
}

test("a stream that arrived whole reports the overhead its run record holds, without the log's acknowledgement", async () => {
  const res = await post(w.url, "/v1/chat/completions", chatBody("gpt-4o-mini", "hi", { stream: true }));
  // Sent as one body: the whole-answer path, which waits for the acknowledgement before its headers.
  expect(res.headers.get("content-length")).not.toBeNull();
  const { header, logged } = await overheadOf(res);
  expect(header).toBe(logged);
  expect(header).toBeLessThan(SLOW_ACK_MS);
});

test("an unstreamed answer reports its overhead without the acknowledgement too", async () => {
  const { header, logged } = await overheadOf(await post(w.url, "/v1/chat/completions", chatBody("gpt-4o-mini")));
  expect(header).toBeLessThan(SLOW_ACK_MS);
  expect(Math.abs(header - logged)).toBeLessThan(SLOW_ACK_MS / 10);
});

test("a slow stream's overhead leaves out the vendor's time to its first event and between events", async () => {
  const DELAY_MS = 60;
  w.openai.enqueue({ text: "one two three four", textChunks: 4, chunkDelayMs: DELAY_MS });
  const res = await post(w.url, "/v1/chat/completions", chatBody("gpt-4o-mini", "hi", { stream: true }));
  expect(res.headers.get("content-length")).toBeNull(); // streamed, not whole
  const { header, logged } = await overheadOf(res);
  expect(header).toBeLessThan(DELAY_MS);
  expect(logged).toBeLessThan(DELAY_MS);
});
