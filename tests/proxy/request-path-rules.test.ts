// Issue 5's rules for the request path, counted rather than timed, each in its own process over the
// real app handler (bench/lib/in-process.ts) on the non-streaming, svc:auto, streamed and
// translated paths.
// - No regex built per request: bench/alloc.ts reports the cells the request thread allocates per
//   request, by type, over windows in which no collection ran. A `new RegExp` from request data,
//   which JavaScriptCore must compile, shows up as RegExp cells; this test fails with one added to
//   the chat route. (A regex literal is compiled once with its function, and the optimizer usually
//   removes its per-call object, so a literal is not what this guards against.)
// - No synchronous disk write: bench/request-io.ts reads the kernel's per-thread I/O accounting. The
//   request thread sends nothing to storage; the run-log writer thread's journal does, which shows
//   the accounting sees file writes at all.
import { expect, test } from "bun:test";
import { join } from "node:path";

const BENCH = join(import.meta.dir, "../../bench");

async function runJson<T>(script: string, args: string[]): Promise<T> {
  const proc = Bun.spawn([process.execPath, join(BENCH, script), "--json", ...args], { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`bench/${script} ${args.join(" ")} exited with ${code}: ${err}`);
  return JSON.parse(out.trim().split("\n").at(-1)!) as T;
}

/** Each test runs a bench script in its own process: ~4 s on a quiet 2-core machine, so bun's 5 s default is too tight under load. */
const SCRIPT_TIMEOUT_MS = 30_000;

const PATHS: Array<[string, string[]]> = [
  ["non-streaming passthrough", []],
  ["svc:auto complexity routing", ["--model", "svc:auto"]],
  ["streaming passthrough", ["--stream"]],
  ["OpenAI client, Anthropic stream translated", ["--stream", "--vendor", "anthropic"]],
];

for (const [name, args] of PATHS) {
  test(`${name}: no RegExp is made per request`, async () => {
    const { windows, perRequest } = await runJson<{ windows: number; perRequest: Record<string, number> }>("alloc.ts", ["--rounds", "6", ...args]);
    expect(windows).toBeGreaterThan(0);
    // The counts are real: each request makes its Request, a Response and promises.
    expect(perRequest.Request).toBe(1);
    expect(perRequest.Promise).toBeGreaterThan(1);
    expect(perRequest.RegExp ?? 0).toBe(0);
  }, SCRIPT_TIMEOUT_MS);

  test(`${name}: the request thread writes nothing to storage`, async () => {
    const { threads } = await runJson<{ threads: Record<string, { writeCalls: number; storageBytes: number }> }>("request-io.ts", ["--requests", "1000", ...args]);
    expect(threads.request).toBeDefined();
    expect(threads.request!.storageBytes).toBe(0);
    const written = Object.entries(threads).filter(([thread, t]) => thread !== "request" && t.storageBytes > 0);
    expect(written.length).toBeGreaterThan(0);
  }, SCRIPT_TIMEOUT_MS);
}
