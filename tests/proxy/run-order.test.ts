// The run log lists runs newest first by their time, then their id. Requests served within one
// millisecond must still list in the order they arrived: a fast vendor answers several per ms.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { newRequestId } from "../../src/core/ids.ts";
import { chatBody, post, runs, startWorld, type World } from "./world.ts";

let w: World;
beforeAll(async () => {
  w = await startWorld();
});
afterAll(() => w.stop());

test("runs list newest first in the order they arrived, each at its arrival time", async () => {
  const sent: Array<{ id: string; before: number; after: number }> = [];
  for (let i = 0; i < 40; i++) {
    const before = Date.now();
    const res = await post(w.url, "/v1/chat/completions", chatBody("gpt-4o-mini"));
    await res.text();
    sent.push({ id: res.headers.get("x-svc-request-id")!, before, after: Date.now() });
  }
  const listed = await runs(w);
  expect(listed.map((r) => r.id)).toEqual(sent.map((s) => s.id).reverse());
  const byId = new Map(listed.map((r) => [r.id, r]));
  for (const s of sent) {
    const ts = byId.get(s.id)!.ts;
    expect(ts).toBeGreaterThanOrEqual(s.before);
    expect(ts).toBeLessThanOrEqual(s.after);
  }
});

test("ids made within one millisecond sort in the order they were made", () => {
  const now = Date.now() + 60_000; // a millisecond no other id of this process has used
  const ids = Array.from({ length: 2_000 }, () => newRequestId(now));
  expect([...ids].sort()).toEqual(ids);
  expect(new Set(ids).size).toBe(ids.length);
  expect(ids[0]).toMatch(/^req_[0-9a-z]{23}$/);
});
