// The core runs anywhere (issue 35, item 3): src/portable.ts, bundled for Node as the SDK bundles
// it, imports nothing from a platform, and under Node 20 (no Bun global) it routes whole and
// streamed calls to a fake vendor, falls back to a plugin's model when the first one fails, and
// hands each run's record to onRecord. The Node side is node-run.mjs; it prints what it saw.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const ROOT = resolve(import.meta.dir, "../..");
const NODE = Bun.which("node");
/** Under CI a missing Node fails the suite: the claim is tested there or not at all. */
const REQUIRED = process.env.CI === "true";
const MIN_MAJOR = 20;
/** `import … from "x"`, `export … from "x"`, `import "x"`, `import("x")` and `require("x")`, minified or not. */
const MODULE_REFERENCE = /(?:^|[\s;])(?:import|export)\s*[\w{*][^;]*?\bfrom\s*["']([\w@./:-]+)["']|\bimport\s*\(?\s*["']([\w@./:-]+)["']|\brequire\s*\(\s*["']([\w@./:-]+)["']/g;

let dir: string;
let bundle = "";
let run: any;
let stderr = "";

beforeAll(async () => {
  if (!NODE) return;
  dir = mkdtempSync(join(tmpdir(), "relay-portable-"));
  const built = await Bun.build({ entrypoints: [join(ROOT, "src/portable.ts")], target: "node", format: "esm", outdir: dir, naming: "[name].mjs" });
  if (!built.success) throw new AggregateError(built.logs, "bundling src/portable.ts failed");
  const file = join(dir, "portable.mjs");
  bundle = readFileSync(file, "utf8");
  const child = Bun.spawn([NODE, join(import.meta.dir, "node-run.mjs"), pathToFileURL(file).href], { stdout: "pipe", stderr: "pipe", env: { PATH: process.env.PATH ?? "" } });
  const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  stderr = err;
  if (code !== 0) throw new Error(`node exited with ${code}:\n${err}`);
  run = JSON.parse(out);
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const onNode = NODE ? test : test.skip;

describe("the core on Node", () => {
  test.skipIf(!NODE && !REQUIRED)(`node ${MIN_MAJOR} or later is installed`, () => {
    expect(NODE).toBeTruthy();
    const version = Bun.spawnSync([NODE!, "--version"]).stdout.toString().trim();
    expect(Number(/^v(\d+)\./.exec(version)?.[1])).toBeGreaterThanOrEqual(MIN_MAJOR);
  });

  onNode("the bundle imports no module (no bun:, no node:) and calls no Bun API directly", () => {
    expect(bundle.length).toBeGreaterThan(0);
    const imports = [...bundle.matchAll(MODULE_REFERENCE)].map((m) => m[1] ?? m[2] ?? m[3]);
    expect(imports).toEqual([]);
    // The runtime seams detect Bun through globalThis (globalThis.Bun?.peek); nothing names it bare.
    expect(bundle.match(/(?<![\w$.])Bun\s*\??\./g) ?? []).toEqual([]);
  });

  onNode("it ran on Node, where there is no Bun", () => {
    expect(Number(/^v(\d+)\./.exec(run.node)?.[1])).toBeGreaterThanOrEqual(MIN_MAJOR);
    expect(run.bunGlobal).toBe("undefined");
    expect(stderr).toBe("");
  });

  onNode("a whole call: the vendor's answer, the routed model, its usage and its record", () => {
    const { whole, records, calls } = run;
    expect(whole.kind).toBe("answer");
    expect(whole.body.choices[0].message.content).toBe("Hello from Node");
    expect(whole.facts).toEqual({ routedModel: "gpt-4o-mini", provider: "openai", strategy: "fallback", fallbackUsed: false, attempts: 1 });
    expect(whole.usage).toMatchObject({ inputTokens: 12, outputTokens: 3 });
    expect(records[0]).toMatchObject({ id: whole.recordId, routedModel: "gpt-4o-mini", provider: "openai", status: 200, outcome: "ok", stream: false, inputTokens: 12, outputTokens: 3 });
    expect(records[0].costUsd).toBeGreaterThan(0);
    // The key and base URL came from the env option; the call carries this router's loop mark.
    expect(calls[0]).toMatchObject({ path: "/v1/chat/completions", model: "gpt-4o-mini", stream: false, authorization: "Bearer sk-test" });
    expect(calls[0].via).toMatch(/^relay-[0-9a-f]{24}$/);
  });

  onNode("a streamed call: a live stream (the portable sink) read with readableOf, then its record", () => {
    const { streamed, records } = run;
    expect(streamed).toMatchObject({ kind: "stream", contentType: "text/event-stream", bodyKind: "stream" });
    const deltas = streamed.sse
      .split("\n\n")
      .filter((e: string) => e.startsWith("data: {"))
      .map((e: string) => JSON.parse(e.slice(6)).choices[0]?.delta?.content ?? "");
    expect(deltas.join("")).toBe("Hello from Node");
    expect(streamed.sse.trimEnd().endsWith("data: [DONE]")).toBe(true);
    expect(streamed.facts.routedModel).toBe("gpt-4o-mini");
    expect(streamed.record).toMatchObject({ routedModel: "gpt-4o-mini", status: 200, outcome: "ok", stream: true, inputTokens: 12, outputTokens: 3 });
    expect(records[1]).toEqual(streamed.record);
  });

  onNode("a failing first candidate falls back to the next in its chain: a provider handed in as a plugin", () => {
    const { fallback, records, calls } = run;
    expect(fallback.kind).toBe("answer");
    expect(fallback.content.content).toEqual([{ type: "text", text: "Hello from Node" }]);
    expect(fallback.facts).toEqual({ routedModel: "acme-small", provider: "acme", strategy: "fallback", fallbackUsed: true, attempts: 2 });
    expect(fallback.record.events.map((e: { type: string; status?: number }) => [e.type, e.status])).toEqual([
      ["error", 500],
      ["fallback", undefined],
      ["attempt", 200],
    ]);
    expect(records[2]).toEqual(fallback.record);
    expect(calls.slice(2).map((c: { path: string; model: string }) => [c.path, c.model])).toEqual([
      ["/v1/chat/completions", "gpt-4o"],
      ["/acme/v1/chat/completions", "acme-small"],
    ]);
  });

  onNode("a refusal is a result, and a bad config throws the loader's ConfigError", () => {
    expect(run.unknown).toMatchObject({ kind: "error", status: 400, code: "model_not_found" });
    expect(run.records).toHaveLength(3);
    expect(run.configError).toEqual({ isConfigError: true, message: 'config: /routing/enabled: Expected boolean (got "yes")' });
  });
});
