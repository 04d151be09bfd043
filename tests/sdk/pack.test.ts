// The SDK as its users get it (issue 39, item 1, local mode): sdk/ built, packed with npm pack and
// installed offline into an empty project outside the repository; the tarball holds the bundle,
// its declarations, the manifest and the README, and the bundle imports nothing and contains no
// server surface, store or Bun API. consumer-run.mjs then runs a three-step workflow (two parallel
// steps, one dependent with a JSON schema) under Node, Bun and Deno against a fake OpenAI, with the
// update check pointed at a host that accepts connections and never answers; each WorkflowResult is
// checked field by field, and the telemetry batches are read by the cloud's own parser.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { runBatch } from "../../src/core/mesh/run-upload.ts";
import { versionRoutes } from "../../src/surfaces/cloud/version.ts";
import { type FakeVendor, type ReceivedRequest, startFakeVendor } from "../fakes/vendor.ts";
import { installPackedSdk, NODE, ROOT, runIn, SDK } from "./packed.ts";

/** Deno from npm (the `deno` dev dependency, so `npm ci` installs it; the test needs no network). */
const DENO = join(ROOT, "node_modules/.bin/deno");
if (!existsSync(DENO)) throw new Error(`${DENO} not found: run npm ci (deno is a dev dependency)`);
/** The same reading of imports as tests/portable/node.test.ts. */
const MODULE_REFERENCE = /(?:^|[\s;])(?:import|export)\s*[\w{*][^;]*?\bfrom\s*["']([\w@./:-]+)["']|\bimport\s*\(?\s*["']([\w@./:-]+)["']|\brequire\s*\(\s*["']([\w@./:-]+)["']/g;
/** Each vendor call waits so long, so that parallel steps overlap visibly. */
const VENDOR_LATENCY_MS = 300;
/** The SDK's update check gives up on a silent host after this long (sdk/src/updates.ts). */
const CHECK_TIMEOUT_MS = 3000;
const SDK_VERSION: string = JSON.parse(readFileSync(join(SDK, "package.json"), "utf8")).version;
/** The SDK release of the cloud in the update tests: always newer than this one. */
const NEWER = "99.0.0";
const REPORT = { headline: "Relay ships an SDK", tagCount: 2 };

let dir: string;
let project: string;
let packed: { filename: string; files: Array<{ path: string }> };
let vendor: FakeVendor;
let telemetry: ReturnType<typeof Bun.serve>;
const uploads: Array<{ apiKey: string | null; body: Record<string, unknown> }> = [];
let silent: Bun.TCPSocketListener<undefined>;
const silentSaw: string[] = [];

const run = async (cmd: string[], cwd: string, env: Record<string, string> = {}): Promise<string> => (await runIn(cmd, cwd, env)).out;

function reply(req: ReceivedRequest) {
  const user = String(req.json?.messages?.findLast((m: { role: string }) => m.role === "user")?.content ?? "");
  const text = user.startsWith("Summarise") ? "SDK released" : user.startsWith("Tags") ? "news, sdk" : JSON.stringify(REPORT);
  return { text, usage: { input: 20, output: 5 }, latencyMs: VENDOR_LATENCY_MS };
}

beforeAll(async () => {
  ({ dir, project, packed } = await installPackedSdk({ "consumer-run.mjs": "run.mjs", "consumer-updates.mjs": "updates.mjs" }));

  vendor = await startFakeVendor("openai");
  vendor.setDefault(reply);
  telemetry = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: async (request) => {
      uploads.push({ apiKey: request.headers.get("x-api-key"), body: (await request.json()) as Record<string, unknown> });
      return Response.json({ accepted: 1 });
    },
  });
  // Accepts connections, reads what is sent, never answers.
  silent = Bun.listen<undefined>({ hostname: "127.0.0.1", port: 0, socket: { data: (_, data) => void silentSaw.push(data.toString()) } });
}, 120_000);

afterAll(async () => {
  silent?.stop(true);
  await telemetry?.stop(true);
  await vendor?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("the packed SDK", () => {
  test("holds the bundle, its declarations, the manifest and the README, nothing else", () => {
    expect(packed.files.map((f) => f.path).sort()).toEqual(["README.md", "dist/index.d.ts", "dist/index.js", "package.json"]);
  });

  test("its bundle imports no module and contains no surface, store or Bun API", () => {
    const bundle = readFileSync(join(project, "node_modules/@relay/sdk/dist/index.js"), "utf8");
    expect(bundle.length).toBeGreaterThan(0);
    expect([...bundle.matchAll(MODULE_REFERENCE)].map((m) => m[1] ?? m[2] ?? m[3])).toEqual([]);
    expect(bundle.match(/(?<![\w$.])Bun\s*\??\./g) ?? []).toEqual([]);
    for (const word of ["bun:", "src/surfaces", "src/store", "elysia"]) expect(bundle.includes(word), word).toBe(false);
    // The bundle does hold the engine and the router (non-minified, Bun names each module).
    expect(bundle).toContain("src/core/workflows/run.ts");
    expect(bundle).toContain("src/portable.ts");
  });

  test("its manifest: ESM with declarations, Node 20 or later, no dependency to install", () => {
    const manifest = JSON.parse(readFileSync(join(project, "node_modules/@relay/sdk/package.json"), "utf8"));
    expect(manifest).toMatchObject({ name: "@relay/sdk", type: "module", engines: { node: ">=20" } });
    expect(manifest.exports["."]).toEqual({ types: "./dist/index.d.ts", import: "./dist/index.js" });
    expect(manifest.dependencies).toBeUndefined();
    expect(manifest.version).toBe(SDK_VERSION);
  });
});

const runtimes: Array<[string, string[] | undefined]> = [
  ["node", NODE ? [NODE, "run.mjs"] : undefined],
  ["bun", [process.execPath, "run.mjs"]],
  ["deno", [DENO, "run", "-A", "run.mjs"]],
];

describe.each(runtimes)("installed and run on %s", (runtime, cmd) => {
  let out: any;
  let calls: ReceivedRequest[];
  let batches: typeof uploads;

  beforeAll(async () => {
    if (!cmd) return;
    const [callsBefore, uploadsBefore, silentBefore] = [vendor.requests.length, uploads.length, silentSaw.length];
    const env = { FAKE_VENDOR_URL: vendor.url, TELEMETRY_URL: `http://127.0.0.1:${telemetry.port}`, RELAY_API_HOST: `http://127.0.0.1:${silent.port}` };
    out = JSON.parse(await run(cmd, project, env));
    calls = vendor.requests.slice(callsBefore);
    batches = uploads.slice(uploadsBefore);
    out.silentSaw = silentSaw.slice(silentBefore).join("");
  }, 60_000);

  test.skipIf(!cmd)("it ran there", () => {
    expect(out.runtime).toBe(runtime);
    expect(out.version).toBe(SDK_VERSION);
  });

  test.skipIf(!cmd)("the WorkflowResult, field by field", () => {
    const { result } = out;
    expect(Object.keys(result).sort()).toEqual(["finalOutput", "metadata", "steps", "success"]);
    expect(result.success).toBe(true);
    expect(result.finalOutput).toEqual(REPORT);
    expect(result.error).toBeUndefined();
    expect(Object.keys(result.metadata).sort()).toEqual(["caller", "duration", "endTime", "startTime", "workflowName"]);
    expect(result.metadata.workflowName).toBe("article");
    expect(result.metadata.caller).toBe("pack-test");
    expect(out.dates).toBe(true);
    const [start, end] = [Date.parse(result.metadata.startTime), Date.parse(result.metadata.endTime)];
    expect(end - start).toBe(result.metadata.duration);
    expect(Object.keys(result.steps).sort()).toEqual(["report", "summary", "tags"]);
    const prompts = { summary: { user: "Summarise: Relay ships an SDK" }, tags: { system: "You tag texts.", user: "Tags for: Relay ships an SDK" }, report: { user: "Report on SDK released tagged news, sdk" } };
    const outputs = { summary: "SDK released", tags: "news, sdk", report: REPORT };
    for (const name of ["summary", "tags", "report"] as const) {
      const step = result.steps[name];
      expect(Object.keys(step).sort(), name).toEqual(["cost", "latency", "model", "output", "prompt", "repaired", "retries", "routedModel", "status", "tokens"]);
      expect(step.status).toBe("completed");
      expect(step.output).toEqual(outputs[name]);
      expect(step.model).toBe("openai:gpt-4o-mini");
      expect(step.routedModel).toBe("openai:gpt-4o-mini");
      expect(step.tokens).toEqual({ input: 20, output: 5, total: 25 });
      expect(step.cost).toBeGreaterThan(0);
      expect(step.latency).toBeGreaterThanOrEqual(VENDOR_LATENCY_MS - 5);
      expect(step.retries).toBe(0);
      expect(step.repaired).toBe(false);
      expect(step.prompt).toEqual(prompts[name]);
    }
  });

  test.skipIf(!cmd)("the vendor saw two parallel calls, then the dependent one asking for the schema, with the configured credentials", () => {
    expect(calls.map((c) => String(c.json.messages.at(-1).content).split(" ")[0])).toEqual(["Summarise:", "Tags", "Report"]);
    expect(Math.abs(calls[1].at - calls[0].at)).toBeLessThan(VENDOR_LATENCY_MS / 2);
    expect(calls[2].at - Math.max(calls[0].at, calls[1].at)).toBeGreaterThanOrEqual(VENDOR_LATENCY_MS - 5);
    expect(calls[2].json.response_format).toMatchObject({ type: "json_schema" });
    for (const call of calls) expect(call.headers).toMatchObject({ authorization: "Bearer sk-test", "openai-organization": "org-test" });
  });

  test.skipIf(!cmd)("the update check went to a host that never answers, and the run did not wait for it", () => {
    expect(out.silentSaw).toStartWith("POST /api/v1/version/check");
    // Three calls in two waves of VENDOR_LATENCY_MS (about 0.9 s in all, the catalog's first build
    // included); a run that waited for the check would take its 3 s timeout and those waves too.
    expect(out.wallMs).toBeGreaterThanOrEqual(2 * VENDOR_LATENCY_MS);
    expect(out.wallMs).toBeLessThan(CHECK_TIMEOUT_MS);
  });

  test.skipIf(!cmd)("telemetry: the three calls' records, in the shape POST /v1/telemetry/logs accepts", () => {
    expect(batches.map((b) => b.apiKey)).toEqual(batches.map(() => "rk-telemetry"));
    const records = batches.flatMap((b) => runBatch(b.body, "team_x"));
    expect(records).toHaveLength(3);
    for (const r of records) expect(r).toMatchObject({ routedModel: "gpt-4o-mini", provider: "openai", status: 200, inputTokens: 20, outputTokens: 5, metadata: { caller: "pack-test", workflow: "article" } });
    expect(records.map((r) => r.metadata.step).sort()).toEqual(["report", "summary", "tags"]);
  });

  test.skipIf(!cmd)("cloud mode is refused while not configured; a bad definition is refused before any call; the configuration is read and reset", () => {
    expect(out.cloud.message).toContain("cloud mode is off");
    expect(out.definition.name).toBe("WorkflowDefinitionError");
    expect(out.definition.message).toContain("nope");
    expect(out.configured.providers.openai).toEqual({ apiKey: "sk-test", baseUrl: `${vendor.url}/v1`, organization: "org-test" });
    expect(out.configured.telemetry).toMatchObject({ enabled: true, apiKey: "rk-telemetry" });
    expect(out.afterReset).toEqual({});
  });
});

describe.skipIf(!NODE)(`update checks against the cloud's version route (a build shipping SDK ${NEWER})`, () => {
  let cloud: ReturnType<typeof Bun.serve>;
  let checks: Array<Record<string, unknown>>;

  beforeAll(() => {
    const routes = versionRoutes({ server: "1.0.0", sdk: { package: "@relay/sdk", version: NEWER } });
    cloud = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: async (request) => {
        checks.push((await request.clone().json()) as Record<string, unknown>);
        return routes.handle(request);
      },
    });
  });
  afterAll(() => cloud?.stop(true));

  async function runWith(env: Record<string, string>) {
    checks = [];
    const { out, err } = await runIn([NODE!, "updates.mjs"], project, { FAKE_VENDOR_URL: vendor.url, RELAY_API_HOST: `http://127.0.0.1:${cloud.port}`, ...env });
    return { ...JSON.parse(out), err };
  }

  test("the manual check reports the update; the automatic one prints a notice once", async () => {
    const seen = await runWith({});
    expect(seen.manual).toEqual({ updateAvailable: true, current: SDK_VERSION, latest: NEWER, urgency: "major" });
    expect(seen.success).toBe(true);
    expect(checks).toEqual([{ version: SDK_VERSION, component: "sdk" }, { version: SDK_VERSION, component: "sdk" }]);
    expect(seen.err).toBe(`@relay/sdk ${NEWER} is available (you have ${SDK_VERSION}); set RELAY_QUIET_VERSION_CHECK=true to hide this\n`);
  });

  test("RELAY_QUIET_VERSION_CHECK=true: the automatic check runs and prints nothing", async () => {
    const seen = await runWith({ RELAY_QUIET_VERSION_CHECK: "true" });
    expect(checks).toHaveLength(2);
    expect(seen.err).toBe("");
  });

  test("RELAY_NO_VERSION_CHECK: no automatic check, the manual one still answers", async () => {
    const seen = await runWith({ RELAY_NO_VERSION_CHECK: "1" });
    expect(seen.manual.updateAvailable).toBe(true);
    expect(checks).toHaveLength(1);
    expect(seen.err).toBe("");
  });
});
