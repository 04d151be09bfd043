// Issue 5: "no per-request regex compilation" on the request path. Counted, not timed: bench/alloc.ts
// runs the real app handler in its own process and reports the cells the request thread allocates
// per request, by type, over windows in which no collection ran. A regex built per request (a
// `new RegExp` from request data, which JavaScriptCore must compile) shows up as RegExp cells; this
// test fails with one added to the chat route. A regex literal is compiled once with its function, and
// the optimizer usually removes its per-call object, so a literal is not what this guards against.
import { expect, test } from "bun:test";
import { join } from "node:path";

const ALLOC = join(import.meta.dir, "../../bench/alloc.ts");

async function allocations(args: string[]): Promise<{ windows: number; perRequest: Record<string, number> }> {
  const proc = Bun.spawn([process.execPath, ALLOC, "--json", "--rounds", "6", ...args], { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`bench/alloc.ts ${args.join(" ")} exited with ${code}: ${err}`);
  return JSON.parse(out.trim().split("\n").at(-1)!);
}

const PATHS: Array<[string, string[]]> = [
  ["non-streaming passthrough", []],
  ["svc:auto complexity routing", ["--model", "svc:auto"]],
  ["streaming passthrough", ["--stream"]],
  ["OpenAI client, Anthropic stream translated", ["--stream", "--vendor", "anthropic"]],
];

for (const [name, args] of PATHS) {
  test(`${name}: no RegExp is made per request`, async () => {
    const { windows, perRequest } = await allocations(args);
    expect(windows).toBeGreaterThan(0);
    // The counts are real: each request makes its Request, a Response and promises.
    expect(perRequest.Request).toBe(1);
    expect(perRequest.Promise).toBeGreaterThan(1);
    expect(perRequest.RegExp ?? 0).toBe(0);
  });
}
