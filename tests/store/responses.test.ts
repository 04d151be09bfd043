// The stored Responses API answers (src/store/responses/) on both drivers: round trip, replace,
// delete, retention. Postgres is skipped with a warning when unreachable, required when CI=true.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { StoredResponse } from "../../src/store/responses/types.ts";
import type { Store } from "../../src/store/types.ts";
import { storeDrivers } from "./drivers.ts";

const DRIVERS = await storeDrivers("relay-responses");

const stored = (id: string, ts: number, over: Partial<StoredResponse> = {}): StoredResponse => ({
  id,
  ts,
  provider: "anthropic",
  input: [{ role: "user", content: "Name a colour" }, { type: "message", role: "user", content: [{ type: "input_text", text: "ünïcødé ✓" }] }],
  response: {
    id,
    object: "response",
    created_at: Math.floor(ts / 1000),
    status: "completed",
    model: "claude-haiku-4-5",
    output: [{ type: "message", id: "msg_1", role: "assistant", status: "completed", content: [{ type: "output_text", text: "Blue", annotations: [] }] }],
    usage: { input_tokens: 10, input_tokens_details: { cached_tokens: 2 }, output_tokens: 1, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 11 },
  },
  ...over,
});

for (const driver of DRIVERS) {
  describe.skipIf(!driver.available)(driver.name, () => {
    let store: Store;
    beforeEach(async () => {
      store = await driver.open();
    });
    afterEach(() => store.close());

    test("a stored response comes back as it was kept, key order included", async () => {
      const r = stored("resp_a", 1_700_000_000_000);
      await store.responses.put(r);
      const got = await store.responses.get("resp_a");
      expect(got).toEqual(r);
      expect(JSON.stringify(got!.response)).toBe(JSON.stringify(r.response));
      expect(await store.responses.get("resp_missing")).toBeUndefined();
    });

    test("a second put under the same id replaces the first", async () => {
      await store.responses.put(stored("resp_b", 1_000));
      const again = stored("resp_b", 2_000, { provider: "openai", input: [] });
      await store.responses.put(again);
      expect(await store.responses.get("resp_b")).toEqual(again);
    });

    test("delete says whether there was one", async () => {
      await store.responses.put(stored("resp_c", 1_000));
      expect(await store.responses.delete("resp_c")).toBe(true);
      expect(await store.responses.get("resp_c")).toBeUndefined();
      expect(await store.responses.delete("resp_c")).toBe(false);
    });

    test("prune deletes only what is older, in batches, and counts it", async () => {
      // Three of its 500-row batches: two full, one not.
      const old = Array.from({ length: 1_003 }, (_, i) => stored(`resp_old_${i}`, 1_000 + i));
      await Promise.all(old.map((r) => store.responses.put(r)));
      await store.responses.put(stored("resp_new", 5_000));
      expect(await store.responses.prune(5_000)).toBe(1_003);
      expect(await store.responses.get("resp_old_0")).toBeUndefined();
      expect(await store.responses.get("resp_old_1002")).toBeUndefined();
      expect(await store.responses.get("resp_new")).toBeDefined();
      expect(await store.responses.prune(5_000)).toBe(0);
    }, 30_000);
  });
}
