// The engine runs where the core runs (issue 39, item 2): src/core/workflows bundled for Node as
// src/portable.ts is (tests/portable/node.test.ts) imports no module and names no Bun API, and under
// Node runs a workflow through the portable router against a fake vendor. The Node side is node-run.mjs.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { type FakeVendor, startFakeVendor } from "../fakes/vendor.ts";
import { lastUserText } from "./world.ts";

const ROOT = resolve(import.meta.dir, "../..");
const NODE = Bun.which("node");
/** The same reading of imports as tests/portable/node.test.ts. */
const MODULE_REFERENCE = /(?:^|[\s;])(?:import|export)\s*[\w{*][^;]*?\bfrom\s*["']([\w@./:-]+)["']|\bimport\s*\(?\s*["']([\w@./:-]+)["']|\brequire\s*\(\s*["']([\w@./:-]+)["']/g;

let dir: string;
let vendor: FakeVendor;
let bundle = "";
let run: any;

beforeAll(async () => {
  if (!NODE) return;
  vendor = await startFakeVendor("openai");
  vendor.setDefault((req) => ({ text: lastUserText(req).startsWith("C") ? '{"ok":true}' : `out-${lastUserText(req)[0]}` }));
  dir = mkdtempSync(join(tmpdir(), "relay-workflows-"));
  const entrypoints = [join(ROOT, "src/core/workflows/index.ts"), join(ROOT, "src/portable.ts")];
  const built = await Bun.build({ entrypoints, target: "node", format: "esm", outdir: dir, naming: "[name].mjs" });
  if (!built.success) throw new AggregateError(built.logs, "bundling failed");
  bundle = readFileSync(join(dir, "index.mjs"), "utf8");
  const args = [join(import.meta.dir, "node-run.mjs"), pathToFileURL(join(dir, "index.mjs")).href, pathToFileURL(join(dir, "portable.mjs")).href, vendor.url];
  const child = Bun.spawn([NODE, ...args], { stdout: "pipe", stderr: "pipe", env: { PATH: process.env.PATH ?? "" } });
  const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  if (code !== 0) throw new Error(`node exited with ${code}:\n${err}`);
  run = JSON.parse(out);
});

afterAll(async () => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  await vendor?.close();
});

test.skipIf(!NODE)("the engine's bundle imports no module and names no Bun API", () => {
  expect(bundle.length).toBeGreaterThan(0);
  expect([...bundle.matchAll(MODULE_REFERENCE)].map((m) => m[1] ?? m[2] ?? m[3])).toEqual([]);
  expect(bundle.match(/(?<![\w$.])Bun\s*\??\./g) ?? []).toEqual([]);
});

test.skipIf(!NODE)("under Node, a three-step workflow runs through the portable router", () => {
  expect(run.bunGlobal).toBe("undefined");
  expect(run.result).toMatchObject({ success: true, finalOutput: { ok: true }, metadata: { workflowName: "on-node" } });
  expect(run.result.steps.c.prompt.user).toBe("C out-A out-B");
  expect(vendor.requests).toHaveLength(3);
});
