// The mesh end to end (issue 38 item 6), with every Relay a real process: one `relay cloud` and two
// `relay start` proxies, each with its own RELAY_HOME and SQLite file (no Postgres, no Redis), and a
// fake OpenAI vendor per proxy. Proxy A's vendor fails gpt-4o-mini; B's serves it. Before any sync B
// routes svc:auto to gpt-4o-mini; after A pushes (POST /v1/mesh/sync) and B pulls (the same), B routes
// around it, says why in x-svc-routing-reasons, and never calls it. Canary strings in A's prompts,
// system prompts, tool names and metadata appear nowhere in the cloud's files or its log output.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { startFakeVendor, type FakeVendor, type ReceivedRequest } from "../fakes/vendor.ts";
import { childEnv, freePort, FROM_SOURCE, REPO, run, startRelayProcess, tempDir, type RunningRelay } from "../cli/relay-process.ts";

const FAILING = "gpt-4o-mini";
const ADMIN = "mesh-test-admin-token-0123456789";
const CANARIES = {
  prompt: "CANARY-PROMPT-7f3a9c1e",
  system: "CANARY-SYSTEM-2b8d4e6f",
  tool: "canary_tool_5e1c7a3b",
  metadata: "CANARY-METADATA-9d2f6b4a",
};
/** Every tier on the model that fails, so svc:auto tries it first whatever the score. */
const proxyConfig = (cloudUrl: string) => ({
  routing: { strategies: { complexity: { tiers: { simple: FAILING, moderate: FAILING, complex: FAILING } } } },
  // A's failures must not cool the whole provider down: the mesh, not the cooldown, is under test.
  cooldown: { failures: 1000 },
  mesh: { enabled: true, url: cloudUrl, intervalSec: 3600 },
});

interface Cloud {
  url: string;
  home: string;
  proc: Subprocess<"ignore", "pipe", "pipe">;
  output: Promise<string>;
}

async function startCloud(): Promise<Cloud & { key: string }> {
  const home = tempDir("mesh-cloud");
  const env = childEnv(home);
  const made = await run([...FROM_SOURCE, "cloud", "teams", "create", "--name", "Mesh", "--plan", "pro", "--json"], { env });
  expect(made.code).toBe(0);
  const key = JSON.parse(made.stdout).api_key as string;
  const port = await freePort();
  const proc = Bun.spawn([...FROM_SOURCE, "cloud", "--port", String(port)], { env, cwd: REPO, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const output = Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]).then(([o, e]) => o + e);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 20_000;
  while (!(await fetch(`${url}/health`).then((r) => r.ok, () => false))) {
    if (proc.exitCode !== null || Date.now() > deadline) throw new Error(`relay cloud did not start: ${await output}`);
    await Bun.sleep(25);
  }
  return { url, home, proc, output, key };
}

async function startProxy(cloud: { url: string; key: string }, vendor: FakeVendor): Promise<RunningRelay & { home: string }> {
  const home = tempDir("mesh-proxy");
  const config = join(home, "config.json");
  writeFileSync(config, JSON.stringify(proxyConfig(cloud.url)));
  const env = childEnv(home, {
    RELAY_CONFIG: config,
    RELAY_ADMIN_TOKEN: ADMIN,
    RELAY_MESH_API_KEY: cloud.key,
    OPENAI_BASE_URL: `${vendor.url}/v1`,
    OPENAI_API_KEY: "sk-mesh-test",
  });
  return { ...(await startRelayProcess(FROM_SOURCE, { env })), home };
}

/** A chat request carrying a canary in each place text could leak from: prompt, system prompt, tool name, metadata. */
function canaryChat(proxy: string): Promise<Response> {
  return fetch(`${proxy}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-svc-metadata": JSON.stringify({ note: CANARIES.metadata }) },
    body: JSON.stringify({
      model: "svc:auto",
      messages: [
        { role: "system", content: `You are helpful. ${CANARIES.system}` },
        { role: "user", content: `Say hi. ${CANARIES.prompt}` },
      ],
      tools: [{ type: "function", function: { name: CANARIES.tool, description: `tool ${CANARIES.tool}`, parameters: { type: "object", properties: {} } } }],
    }),
  });
}

const plainChat = (proxy: string) =>
  fetch(`${proxy}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "svc:auto", messages: [{ role: "user", content: "Say hi" }] }) });

const admin = (proxy: string, method: "GET" | "POST", path: string) =>
  fetch(`${proxy}${path}`, { method, headers: { authorization: `Bearer ${ADMIN}`, ...(method === "POST" && { "content-type": "application/json" }) } });
const modelsAsked = (vendor: FakeVendor) => vendor.requests.map((r: ReceivedRequest) => r.json?.model as string);

describe("the mesh: two proxies and one cloud, real processes", () => {
  let cloud: Cloud & { key: string };
  let vendorA: FakeVendor;
  let vendorB: FakeVendor;
  let proxyA: RunningRelay & { home: string };
  let proxyB: RunningRelay & { home: string };

  beforeAll(async () => {
    [vendorA, vendorB] = await Promise.all([startFakeVendor("openai"), startFakeVendor("openai")]);
    vendorA.setDefault((req) => (req.json?.model === FAILING ? { status: 500, errorMessage: "upstream exploded" } : { text: "hi from A" }));
    vendorB.setDefault({ text: "hi from B" });
    cloud = await startCloud();
    [proxyA, proxyB] = await Promise.all([startProxy(cloud, vendorA), startProxy(cloud, vendorB)]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all([proxyA?.stop(), proxyB?.stop()]);
    if (cloud?.proc.exitCode === null) cloud.proc.kill("SIGTERM");
    await cloud?.proc.exited;
    await Promise.all([vendorA?.close(), vendorB?.close()]);
    for (const home of [cloud?.home, proxyA?.home, proxyB?.home]) if (home) rmSync(home, { recursive: true, force: true });
  });

  test("A's failures, pushed and pulled, make B route around the model and say why; no canary reaches the cloud", async () => {
    // Before: B has no word of A's failures and routes to the tier's model.
    const before = await plainChat(proxyB.url);
    expect(before.status).toBe(200);
    expect(modelsAsked(vendorB)).toEqual([FAILING]);
    expect(before.headers.get("x-svc-routing-reasons") ?? "").not.toContain("mesh:");

    // A meets repeated failures from gpt-4o-mini; each request is still answered by a fallback.
    for (let i = 0; i < 6; i++) expect((await canaryChat(proxyA.url)).status).toBe(200);
    expect(modelsAsked(vendorA).filter((m) => m === FAILING)).toHaveLength(6);

    const pushed = await admin(proxyA.url, "POST", "/v1/mesh/sync");
    expect(pushed.status).toBe(200);
    const statsA = (await pushed.json()) as Record<string, any>;
    expect(statsA).toEqual(expect.objectContaining({ enabled: true, errors: 0, lastError: null, pending: 0 }));
    expect(statsA.sent).toEqual({ batches: 1, outcomes: 12 });

    const pulled = await admin(proxyB.url, "POST", "/v1/mesh/sync");
    expect(pulled.status).toBe(200);
    const statsB = (await (await admin(proxyB.url, "GET", "/v1/mesh/stats")).json()) as Record<string, any>;
    expect(statsB.received.pulls).toBe(1);
    expect(statsB.received.models).toBeGreaterThanOrEqual(2);
    expect(statsB.sent).toEqual({ batches: 1, outcomes: 1 });

    // After: B routes around gpt-4o-mini (which its own vendor would serve) and says why.
    vendorB.reset();
    vendorB.setDefault({ text: "hi from B" });
    const after = await plainChat(proxyB.url);
    expect(after.status).toBe(200);
    expect(modelsAsked(vendorB)).toHaveLength(1);
    expect(modelsAsked(vendorB)[0]).not.toBe(FAILING);
    // A's six failures against B's own one success, which B's sync pushed before it pulled.
    expect(after.headers.get("x-svc-routing-reasons")).toContain(`mesh: ${FAILING} failing (6/7 errors)`);

    // Nothing of A's requests but names and numbers reached the cloud: not its files, not its output.
    cloud.proc.kill("SIGTERM");
    await cloud.proc.exited;
    const stored = readdirSync(join(cloud.home, "data")).map((f) => readFileSync(join(cloud.home, "data", f)).toString("latin1"));
    expect(stored.join("")).toContain(FAILING);
    const output = await cloud.output;
    for (const canary of Object.values(CANARIES)) {
      for (const file of stored) expect(file.includes(canary)).toBe(false);
      expect(output).not.toContain(canary);
    }
  }, 60_000);
});
