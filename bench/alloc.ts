// What Relay's request thread allocates per request, by JavaScriptCore cell
// type, counted rather than timed: the in-process stack
// (bench/lib/in-process.ts), a full collection, then a window of requests too
// short for the collector to run, and the heap's object counts before and after
// (dead cells stay counted until the collector runs). Counts are deterministic
// where timings on this machine are not, so a change that removes a closure or
// a promise per request shows here exactly. The figures include the bench's own
// share: per request one Request, one Headers and one Response for the vendor's
// answer, and the async frame and promises of its loop.
// --json prints the counts as one JSON object instead (tests/proxy/request-path-rules.test.ts).
//   bun bench/alloc.ts [--model svc:auto] [--no-telemetry] [--no-limits] [--stream] [--vendor anthropic] [--window 300] [--rounds 10] [--json]
import { fullGC, heapStats } from "bun:jsc";
import { parseArgs } from "node:util";
import { STACK_FLAGS, stackOptions, startInProcess } from "./lib/in-process.ts";

const { values } = parseArgs({
  options: {
    ...STACK_FLAGS,
    window: { type: "string", default: "300" },
    rounds: { type: "string", default: "10" },
    json: { type: "boolean", default: false },
  },
});
const WINDOW = Number(values.window);
const ROUNDS = Number(values.rounds);
const relay = await startInProcess(stackOptions(values));

try {
  await relay.drive(20_000); // JIT warm-up, caches filled
  const totals = new Map<string, number>();
  let counted = 0;
  for (let r = 0; r < ROUNDS; r++) {
    fullGC();
    const before = heapStats().objectTypeCounts;
    await relay.drive(WINDOW);
    const after = heapStats().objectTypeCounts;
    // Every request makes exactly one Request; fewer new ones means a collection ran inside the window.
    if ((after.Request ?? 0) - (before.Request ?? 0) !== WINDOW) continue;
    counted++;
    for (const [type, n] of Object.entries(after)) totals.set(type, (totals.get(type) ?? 0) + n - (before[type] ?? 0));
  }
  if (counted === 0) throw new Error("a collection ran inside every window: try a smaller --window");
  const perRequest = [...totals].map(([type, n]) => [type, n / (counted * WINDOW)] as const);
  if (values.json) console.log(JSON.stringify({ windows: counted, perRequest: Object.fromEntries(perRequest) }));
  else printTable(perRequest, counted);
} finally {
  await relay.close();
}
process.exit(0);

function printTable(perRequest: ReadonlyArray<readonly [string, number]>, counted: number): void {
  const rows = perRequest.filter(([, n]) => n >= 0.05);
  rows.sort((a, b) => b[1] - a[1]);
  console.log(`${relay.label}: cells allocated per request on the request thread (${counted} of ${ROUNDS} windows of ${WINDOW} requests had no collection)`);
  for (const [type, n] of rows) console.log(`  ${type.padEnd(28)} ${n.toFixed(2).padStart(7)}`);
  console.log(`  ${"all".padEnd(28)} ${rows.reduce((s, [, n]) => s + n, 0).toFixed(2).padStart(7)}`);
}
