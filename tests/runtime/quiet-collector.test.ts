// The idle collector's schedule (src/runtime/serve.ts), driven tick by tick: a burst
// gets QUIET_COLLECTIONS full collections on consecutive quiet ticks, traffic or
// requests in flight put them off, and a trickle of requests never starts any.
import { describe, expect, test } from "bun:test";
import { BURST_REQUESTS, QUIET_COLLECTIONS, quietCollector } from "../../src/runtime/serve.ts";

function harness() {
  const state = { served: 0, pending: 0, collections: 0 };
  const collector = quietCollector(
    () => state.served,
    () => state.pending,
    () => void state.collections++,
  );
  return { state, tick: collector.tick };
}

describe("quietCollector", () => {
  test("a burst gets its collections on consecutive quiet ticks, then no more", () => {
    const { state, tick } = harness();
    state.served = BURST_REQUESTS;
    tick(); // traffic since the last tick: not quiet
    expect(state.collections).toBe(0);
    for (let i = 1; i <= QUIET_COLLECTIONS; i++) {
      tick();
      expect(state.collections).toBe(i);
    }
    for (let i = 0; i < 5; i++) tick();
    expect(state.collections).toBe(QUIET_COLLECTIONS);
  });

  test("requests in flight or new traffic put the collections off", () => {
    const { state, tick } = harness();
    state.served = BURST_REQUESTS;
    tick();
    state.pending = 1; // a long stream still open
    tick();
    tick();
    expect(state.collections).toBe(0);
    state.pending = 0;
    state.served++; // one more request finished since the last tick
    tick();
    expect(state.collections).toBe(0);
    tick();
    expect(state.collections).toBe(1);
  });

  test("a trickle of traffic never triggers a collection", () => {
    const { state, tick } = harness();
    state.served = BURST_REQUESTS - 1;
    tick();
    for (let i = 0; i < 5; i++) tick(); // quiet, but fewer than BURST_REQUESTS requests since start
    expect(state.collections).toBe(0);
    state.served++; // the request that makes it a burst
    tick();
    tick();
    expect(state.collections).toBe(1);
  });

  test("a new burst after the last one's collections gets its own", () => {
    const { state, tick } = harness();
    state.served = BURST_REQUESTS;
    tick();
    for (let i = 0; i < QUIET_COLLECTIONS + 2; i++) tick();
    state.served += BURST_REQUESTS;
    tick();
    tick();
    expect(state.collections).toBe(QUIET_COLLECTIONS + 1);
  });
});
