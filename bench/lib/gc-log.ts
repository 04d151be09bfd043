// Reads what JavaScriptCore prints with BUN_JSC_logGC=1: one record per
// collection, `[GC<heap>: START M <size>kb => EdenCollection … p=<pause>ms …
// => <size after>kb, p=<pause>ms (max …), cycle <ms>ms END]`, with a `p=` for
// each stop-the-world increment of a collection that runs in several. A
// process's heaps (its main thread's and each worker's) write to the same
// stderr, so when two collect at once their records interleave, down to single
// characters. The text is read as a stream of tokens: an increment's pause
// goes to the heap named last; a record's end, which does not name its heap,
// goes to the open record it can belong to (its size after is under the size
// it started at) that started smallest, since a worker's heap is far smaller
// than the main thread's, else to the heap named last. Rare as collisions are, a pause can still land on
// the wrong heap of the same process; the process's totals do not change.

export type CollectionKind = "Eden" | "Full";

export interface Collection {
  heap: string;
  kind: CollectionKind;
  /** Heap size when the collection started, and after it, in KB. */
  beforeKb: number;
  afterKb: number;
  /** Sum of the collection's stop-the-world increments. */
  pauseMs: number;
}

const TOKEN = /\[GC<(0x[0-9a-f]+)>: |START M (\d+)kb => (Eden|Full)Collection|=> (\d+)kb, p=([\d.]+)ms \(max [\d.]+\), cycle [\d.]+ms END\]|p=([\d.]+)ms/g;

export function parseGcLog(text: string): Collection[] {
  const done: Collection[] = [];
  const open = new Map<string, Collection>();
  let heap: string | undefined;
  for (const m of text.matchAll(TOKEN)) {
    if (m[1] !== undefined) heap = m[1];
    else if (m[2] !== undefined && heap !== undefined) {
      open.set(heap, { heap, kind: m[3] as CollectionKind, beforeKb: Number(m[2]), afterKb: 0, pauseMs: 0 });
    } else if (m[4] !== undefined) {
      const afterKb = Number(m[4]);
      let c: Collection | undefined;
      for (const o of open.values()) if (o.beforeKb >= afterKb && (!c || o.beforeKb < c.beforeKb)) c = o;
      // A concurrent collection can end larger than it started (the program kept allocating).
      c ??= heap === undefined ? undefined : open.get(heap);
      if (!c) continue;
      c.afterKb = afterKb;
      c.pauseMs += Number(m[5]);
      done.push(c);
      open.delete(c.heap);
      if (heap === c.heap) heap = open.keys().next().value;
    } else if (m[6] !== undefined) {
      const c = heap === undefined ? undefined : open.get(heap);
      if (c) c.pauseMs += Number(m[6]);
    }
  }
  return done;
}

export interface HeapSummary {
  heap: string;
  eden: number;
  full: number;
  /** Stop-the-world time of all its collections. */
  pauseMs: number;
  maxPauseMs: number;
  meanEdenPauseMs: number;
  /** Mean heap size before and after a young collection, in MB. */
  edenBeforeMb: number;
  edenAfterMb: number;
}

/** Per heap, the heap with the most pause time first. */
export function summarise(collections: Collection[]): HeapSummary[] {
  const byHeap = new Map<string, Collection[]>();
  for (const c of collections) byHeap.set(c.heap, [...(byHeap.get(c.heap) ?? []), c]);
  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
  return [...byHeap.entries()]
    .map(([heap, cs]) => {
      const eden = cs.filter((c) => c.kind === "Eden");
      return {
        heap,
        eden: eden.length,
        full: cs.length - eden.length,
        pauseMs: cs.reduce((s, c) => s + c.pauseMs, 0),
        maxPauseMs: Math.max(...cs.map((c) => c.pauseMs)),
        meanEdenPauseMs: mean(eden.map((c) => c.pauseMs)),
        edenBeforeMb: mean(eden.map((c) => c.beforeKb)) / 1024,
        edenAfterMb: mean(eden.map((c) => c.afterKb)) / 1024,
      };
    })
    .sort((a, b) => b.pauseMs - a.pauseMs);
}
