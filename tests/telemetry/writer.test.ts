import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { RunWriter } from "../../src/core/telemetry/writer.ts";
import { openStore } from "../../src/store/open.ts";
import type { RunRecord } from "../../src/core/run-record.ts";
import type { RunLog } from "../../src/store/runs/types.ts";
import type { Store } from "../../src/store/types.ts";

let seq = 0;
function run(): RunRecord {
  seq++;
  return {
    id: `run_${seq}`,
    ts: 1_700_000_000_000 + seq,
    latencyMs: 50,
    requestedModel: "auto",
    routedModel: "m1",
    provider: "p1",
    strategy: "direct",
    status: 200,
    outcome: "ok",
    stream: false,
    clientFormat: "openai",
    inputTokens: 1,
    outputTokens: 1,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    costUsd: 0,
    fallbackUsed: false,
    attempts: 1,
    events: [],
    reasons: [],
    metadata: {},
    overheadMs: 1,
  };
}

/** Wraps a RunLog: each commit waits until release() is called (which lets the latest one go on). */
function heldUntilReleased(log: RunLog) {
  let release = () => {};
  const held: RunLog = { ...log, insertRuns: (records) => new Promise<void>((r) => (release = r)).then(() => log.insertRuns(records)) };
  return { log: held, release: () => release() };
}

/** Wraps a RunLog: records batch sizes, tracks overlap, fails the first `failFirst` calls. */
function instrumented(log: RunLog, failFirst = 0) {
  const spy = { batches: [] as number[], calls: 0, active: 0, maxActive: 0 };
  const wrapped: RunLog = {
    ...log,
    async insertRuns(records) {
      spy.calls++;
      spy.active++;
      spy.maxActive = Math.max(spy.maxActive, spy.active);
      try {
        await Bun.sleep(1); // keep the batch in flight across ticks
        if (spy.calls <= failFirst) throw new Error(`injected failure ${spy.calls}`);
        await log.insertRuns(records);
        spy.batches.push(records.length);
      } finally {
        spy.active--;
      }
    },
  };
  return { log: wrapped, spy };
}

const count = async (store: Store) => (await store.runs.listRuns({ limit: 1, offset: 0 })).total;

describe("RunWriter", () => {
  let store: Store;
  beforeEach(async () => {
    store = await openStore({ driver: "sqlite", path: ":memory:" });
  });
  afterEach(() => store.close());

  test("prepare asks the store to prepare its writes once, however many runs call it", async () => {
    let prepared = 0;
    const writer = new RunWriter({ ...store.runs, insertRuns: (r) => store.runs.insertRuns(r), prepareWrites: () => void prepared++ });
    writer.prepare();
    writer.prepare();
    expect(prepared).toBe(1);
    await writer.write(run());
    expect(writer.stats.written).toBe(1);
    await writer.close();
  });

  test("a store that fails to prepare is reported, not thrown, and its writes still go in", async () => {
    const errors: unknown[] = [];
    const writer = new RunWriter(
      {
        ...store.runs,
        insertRuns: (r) => store.runs.insertRuns(r),
        prepareWrites: () => {
          throw new Error("no thread");
        },
      },
      { onError: (e) => errors.push(e) },
    );
    expect(() => writer.prepare()).not.toThrow();
    expect(errors).toEqual([new Error("no thread")]);
    await writer.write(run());
    expect(writer.stats.written).toBe(1);
    await writer.close();
  });

  test("write is synchronous and defers the insert", async () => {
    const { log, spy } = instrumented(store.runs);
    const writer = new RunWriter(log, { batchSize: 2 });
    for (let i = 0; i < 5; i++) writer.write(run());
    expect(spy.calls).toBe(0);
    expect(writer.pending).toBe(5);
    await writer.close();
    expect(await count(store)).toBe(5);
  });

  test("sends full batches, one at a time", async () => {
    const { log, spy } = instrumented(store.runs);
    const writer = new RunWriter(log, { batchSize: 200 });
    for (let i = 0; i < 450; i++) writer.write(run());
    await writer.flush();
    expect(spy.batches).toEqual([200, 200, 50]);
    expect(spy.maxActive).toBe(1);
    expect(writer.stats).toEqual({ written: 450, failed: 0, dropped: 0 });
    expect(writer.pending).toBe(0);
    await writer.close();
  });

  test("close writes every queued record", async () => {
    const writer = new RunWriter(store.runs);
    const ids = new Set<string>();
    for (let i = 0; i < 5_000; i++) {
      const r = run();
      ids.add(r.id);
      writer.write(r);
    }
    await writer.close();
    expect(writer.pending).toBe(0);
    expect(writer.stats.written).toBe(5_000);
    const { runs, total } = await store.runs.listRuns({ limit: 10_000, offset: 0 });
    expect(total).toBe(5_000);
    expect(new Set(runs.map((r) => r.id))).toEqual(ids);
  });

  test("the interval timer flushes a partial batch", async () => {
    const writer = new RunWriter(store.runs, { batchSize: 100, flushIntervalMs: 5 });
    writer.write(run());
    writer.write(run());
    // Poll without asserting on time: the timer alone must write them.
    for (let i = 0; i < 2_000 && writer.stats.written < 2; i++) await Bun.sleep(5);
    expect(await count(store)).toBe(2);
    await writer.close();
  });

  test("failed batches are retried and nothing is lost", async () => {
    const { log, spy } = instrumented(store.runs, 3);
    const errors: unknown[] = [];
    const writer = new RunWriter(log, { batchSize: 100, flushIntervalMs: 2, onError: (e) => errors.push(e) });
    for (let i = 0; i < 250; i++) writer.write(run());
    await writer.close();
    expect(await count(store)).toBe(250);
    expect(writer.stats).toEqual({ written: 250, failed: 3, dropped: 0 });
    expect(errors.map((e) => (e as Error).message)).toEqual(["injected failure 1", "injected failure 2", "injected failure 3"]);
    expect(spy.maxActive).toBe(1);
  });

  test("flush rejects after repeated failures but keeps the records", async () => {
    const { log } = instrumented(store.runs, Number.POSITIVE_INFINITY);
    const writer = new RunWriter(log, { flushIntervalMs: 1, onError: () => {} });
    writer.write(run());
    await expect(writer.flush()).rejects.toThrow(/injected failure/);
    expect(writer.pending).toBe(1);
    expect(writer.stats.dropped).toBe(0);
    expect(writer.stats.failed).toBeGreaterThanOrEqual(6);
    await expect(writer.close()).rejects.toThrow(/injected failure/);
  });

  test("overflow drops the oldest records and reports once per burst", async () => {
    const errors: unknown[] = [];
    const writer = new RunWriter(store.runs, { batchSize: 1_000, maxQueue: 100, onError: (e) => errors.push(e) });
    const records = Array.from({ length: 250 }, run);
    for (const r of records) writer.write(r);
    expect(writer.stats.dropped).toBe(150);
    expect(writer.pending).toBe(100);
    expect(errors).toHaveLength(1);
    await writer.close();
    const { runs } = await store.runs.listRuns({ limit: 1_000, offset: 0 });
    expect(runs.map((r) => r.id).sort()).toEqual(records.slice(150).map((r) => r.id).sort());
    expect(writer.stats.written).toBe(100);
  });

  test("the timer does not keep the process alive", async () => {
    const writerPath = new URL("../../src/core/telemetry/writer.ts", import.meta.url).pathname;
    const script = `import { RunWriter } from ${JSON.stringify(writerPath)};
      new RunWriter({ insertRuns: async () => {} } as never, { flushIntervalMs: 10 });`;
    const proc = Bun.spawn([process.execPath, "-e", script], { timeout: 30_000, stderr: "pipe" });
    expect(await proc.exited).toBe(0);
    expect(proc.signalCode).toBeNull();
  });

  test("write never throws, even when the error hook does", () => {
    const writer = new RunWriter(store.runs, {
      maxQueue: 1,
      batchSize: 10,
      onError: () => {
        throw new Error("hook broke");
      },
    });
    writer.write(run());
    expect(() => writer.write(run())).not.toThrow();
    expect(writer.stats.dropped).toBe(1);
    return writer.close();
  });
});

describe("RunWriter durability", () => {
  let store: Store;
  beforeEach(async () => {
    store = await openStore({ driver: "sqlite", path: ":memory:" });
  });
  afterEach(() => store.close());

  test("a write's promise resolves only once its record is committed", async () => {
    const writer = new RunWriter(store.runs);
    const rec = run();
    let resolved = false;
    const done = writer.write(rec).then(() => (resolved = true));
    expect(resolved).toBe(false);
    await done;
    expect(await store.runs.getRun(rec.id)).toBeDefined();
    await writer.close();
  });

  test("records written while a commit is recent are grouped into one commit", async () => {
    const { log, spy } = instrumented(store.runs);
    const writer = new RunWriter(log, { groupCommitMs: 50 });
    await writer.write(run()); // first commit: immediately on the next turn
    const later = Array.from({ length: 10 }, () => writer.write(run()));
    await Promise.all(later);
    expect(spy.batches).toEqual([1, 10]);
    await writer.close();
  });

  test("a record's wait ends with its own batch, even while later records keep arriving", async () => {
    // Each batch is held until the test releases it, so what is in flight is known exactly.
    const held: Array<() => void> = [];
    const gated: RunLog = { ...store.runs, insertRuns: (records) => new Promise<void>((r) => held.push(r)).then(() => store.runs.insertRuns(records)) };
    const writer = new RunWriter(gated, { flushIntervalMs: 10_000 });
    const nextBatch = async (n: number) => {
      while (held.length < n) await Bun.sleep(1);
    };
    const settled = new Set<string>();
    const write = (rec: RunRecord) => writer.write(rec).then(() => settled.add(rec.id));

    const first = run();
    void write(first);
    await nextBatch(1); // batch 1 in flight
    const second = run();
    void write(second); // queued behind batch 1
    held[0]!();
    await nextBatch(2); // batch 2 (second) in flight
    const third = run();
    void write(third); // queued behind batch 2
    held[1]!();
    await nextBatch(3); // batch 2 committed, batch 3 (third) in flight
    await Bun.sleep(5);
    expect([...settled].sort()).toEqual([first.id, second.id].sort());
    held[2]!();
    await writer.close();
    expect(settled.has(third.id)).toBe(true);
  });

  test("a store that hangs does not hold the caller past maxWaitMs; the record stays queued", async () => {
    const { log: hanging, release } = heldUntilReleased(store.runs);
    const writer = new RunWriter(hanging, { maxWaitMs: 100, flushIntervalMs: 20 });
    const rec = run();
    await writer.write(rec); // resolves through the wait bound, not the commit
    expect(await store.runs.getRun(rec.id)).toBeUndefined();
    expect(writer.pending).toBe(1);
    release();
    await writer.close();
    expect(await store.runs.getRun(rec.id)).toBeDefined();
  });

  // telemetry.durableWaitMs is "the longest a response waits": the bound must hold to the
  // millisecond scale, not to the next retry sweep (250 ms by default).
  test("with the default sweep, a hanging store holds the caller for maxWaitMs, not until the next sweep", async () => {
    const { log: hanging, release } = heldUntilReleased(store.runs);
    const writer = new RunWriter(hanging, { maxWaitMs: 30 });
    const t0 = performance.now();
    await writer.write(run());
    const waited = performance.now() - t0;
    expect(waited).toBeGreaterThanOrEqual(29);
    expect(waited).toBeLessThan(200);
    release();
    await writer.close();
  });

  test("maxWaitMs 0: write() does not wait for the commit, and the record is still written", async () => {
    const { log: hanging, release } = heldUntilReleased(store.runs);
    const writer = new RunWriter(hanging, { maxWaitMs: 0 });
    const rec = run();
    let resolved = false;
    void writer.write(rec).then(() => (resolved = true));
    await Bun.sleep(20);
    expect(resolved).toBe(true);
    expect(writer.pending).toBe(1);
    release();
    await writer.close();
    expect(await store.runs.getRun(rec.id)).toBeDefined();
  });
});
