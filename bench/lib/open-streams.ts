// Client for the open-streams case, run in its own process so its 1,000
// sockets and buffers never count against the process being measured:
//   bun bench/lib/open-streams.ts --url <endpoint> --count 1000 --body '<json>'
// Prints `OPEN <n> <ms>` once every response has its headers, then
// `DONE <ok> <failed> <ms> <first error>` once every stream has ended.
// A stream counts as ok when it answered 200 and ended with `data: [DONE]`.
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    url: { type: "string" },
    count: { type: "string", default: "1000" },
    body: { type: "string" },
  },
});
if (!values.url || !values.body) {
  console.error("--url and --body are required");
  process.exit(2);
}
const { url, body } = values;
const count = Number(values.count);
const started = performance.now();
const elapsed = () => Math.round(performance.now() - started);

let headersIn = 0;
let firstError = "";
const markOpen = () => {
  if (++headersIn === count) console.log(`OPEN ${count} ${elapsed()}`);
};

async function oneStream(): Promise<boolean> {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body }).finally(markOpen);
  const text = await res.text();
  if (res.status === 200 && text.trimEnd().endsWith("data: [DONE]")) return true;
  firstError ||= `status ${res.status}: ${text.slice(0, 200)}`;
  return false;
}

const failed = (e: Error) => {
  firstError ||= e.message;
  return false;
};
const results = await Promise.all(Array.from({ length: count }, () => oneStream().catch(failed)));
const ok = results.filter(Boolean).length;
console.log(`DONE ${ok} ${count - ok} ${elapsed()} ${firstError.replace(/\s+/g, " ")}`);
