// Ranks the functions of a .cpuprofile (from `bun --cpu-prof`, e.g. `bun bench/run.ts --cases a
// --cpu-prof DIR`) by how many samples caught them running. Bun's own markdown summary ranks by
// sampled time, and a sample taken after the thread sat idle is charged the whole idle gap: in a
// load bench, where Relay idles through the floor's slices, that put a forced idle-time collection
// (src/runtime/serve.ts) at the top as "gc" with a quarter of the time. Counting samples does not.
//   bun bench/profile-summary.ts FILE.cpuprofile [--top 30] [--callers NAME]
// --callers NAME: where NAME's samples come from (three frames up), to tell apart the callers of a
// native function such as `stringify` or `postMessage`.
import { parseArgs } from "node:util";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: "string", default: "30" }, callers: { type: "string" } },
});
if (positionals.length !== 1) {
  console.error("usage: bun bench/profile-summary.ts FILE.cpuprofile [--top N] [--callers NAME]");
  process.exit(2);
}
const profile = (await Bun.file(positionals[0]!).json()) as Profile;

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parentOf = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parentOf.set(c, n.id);
const label = (n: ProfileNode): string => {
  const where = n.callFrame.url ? `${n.callFrame.url.replace(/^.*?\/(src|bench|node_modules)\//, "$1/")}:${n.callFrame.lineNumber + 1}` : "native";
  // A regex's "function name" is its whole source: long ones are cut.
  const name = n.callFrame.functionName || "(anonymous)";
  return `${name.length > 80 ? `${name.slice(0, 77)}...` : name} ${where}`;
};

const counts = new Map<string, number>();
for (const id of profile.samples) {
  const node = byId.get(id)!;
  let key = label(node);
  if (values.callers !== undefined) {
    if (node.callFrame.functionName !== values.callers) continue;
    const path: string[] = [];
    for (let p = parentOf.get(id); p !== undefined && path.length < 3; p = parentOf.get(p)) path.push(label(byId.get(p)!));
    key = path.join(" < ") || "(root)";
  }
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

const total = profile.samples.length;
const shown = [...counts].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top));
console.log(`${total} samples${values.callers ? `; callers of ${values.callers}` : ""} (share of all samples)`);
for (const [key, n] of shown) console.log(`${((100 * n) / total).toFixed(1).padStart(5)} %  ${key}`);
