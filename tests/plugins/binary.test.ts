// The key demonstration: the compiled binary, copied alone into an empty
// folder with a plugins/ folder beside it, loads TypeScript and JavaScript
// plugins (no node_modules anywhere), reports broken ones by file and error,
// and routes through them. The same holds when run from source.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { basename, join } from "node:path";
import { startFakeVendor } from "../fakes/vendor.ts";
import type { FakeVendor } from "../fakes/types.ts";
import { FROM_SOURCE, childEnv, ensureBinary, run, startRelayProcess, tempDir, type RunningRelay } from "../cli/relay-process.ts";
import {
  FALLBACK_REASON,
  FILES,
  INIT_ERROR,
  PATTERN_MODEL,
  PROVIDER_BASE_URL_ENV,
  PROVIDER_MODEL,
  PROVIDER_NAME,
  STRATEGY_NAME,
  STRATEGY_TARGET,
  VIRTUAL_MODEL,
  writePlugins,
} from "./fixtures.ts";

interface Mode {
  name: string;
  /** Returns the command and any extra start flags. */
  prepare(root: string): Promise<{ cmd: string[]; args: string[] }>;
}

const MODES: Mode[] = [
  {
    name: "compiled binary alone in an empty folder",
    async prepare(root) {
      const binDir = join(root, "bin");
      writePlugins(join(binDir, "plugins")); // creates bin/ too
      const binary = join(binDir, "relay");
      copyFileSync(await ensureBinary(), binary);
      // No flags: plugins/ beside the binary is a default plugin folder.
      return { cmd: [binary], args: [] };
    },
  },
  {
    name: "from source",
    async prepare(root) {
      const dir = join(root, "plugins");
      writePlugins(dir);
      return { cmd: FROM_SOURCE, args: ["--plugins-dir", dir] };
    },
  },
];

let anthropic: FakeVendor;
let openai: FakeVendor;
beforeAll(async () => {
  [anthropic, openai] = await Promise.all([startFakeVendor("anthropic"), startFakeVendor("openai")]);
});
afterAll(async () => {
  await Promise.all([anthropic?.close(), openai?.close()]);
});

describe.each(MODES)("plugins: $name", (mode) => {
  const root = tempDir("plugins");
  const home = tempDir("plugins-home");
  let server: RunningRelay;
  let cmd: string[];
  // Admin routes need the token on loopback too (issue 34): the install's own, which the server wrote at start.
  const admin = () => ({ authorization: `Bearer ${readFileSync(join(home, "admin-token"), "utf8").trim()}` });

  beforeAll(async () => {
    const prepared = await mode.prepare(root);
    cmd = prepared.cmd;
    const env = childEnv(home, {
      ANTHROPIC_BASE_URL: anthropic.url,
      ANTHROPIC_API_KEY: "test-key",
      [PROVIDER_BASE_URL_ENV]: `${openai.url}/v1`,
    });
    server = await startRelayProcess(cmd, { env, cwd: root, args: prepared.args });
  }, 120_000);

  afterAll(async () => {
    if (server) expect(await server.stop()).toBe(0);
    rmSync(root, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  });

  test("the start-up log lists the good plugins and each failure with its file and error", async () => {
    const listening = await server.waitForLog((r) => r.msg === "relay listening");
    expect(listening.plugins).toEqual(expect.arrayContaining([`strategy:${STRATEGY_NAME}`, "strategy:fallback", `provider:${PROVIDER_NAME}`]));
    expect(listening.pluginFailures).toBe(2);

    const loaded = server.logs().filter((r) => r.msg === "plugin loaded");
    expect(loaded.map((r) => [basename(r.file), r.kind, r.name, r.replaced]).sort()).toEqual(
      [
        [FILES.provider, "provider", PROVIDER_NAME, undefined],
        [FILES.strategy, "strategy", STRATEGY_NAME, undefined],
        [FILES.fallback, "strategy", "fallback", "builtin"],
      ].sort(),
    );
    expect(server.logs().filter((r) => r.msg === "plugin declaration unmet")).toEqual([]);

    const failed = server.logs().filter((r) => r.msg === "plugin failed to load");
    const byFile = new Map(failed.map((r) => [basename(r.file), String(r.error)]));
    expect([...byFile.keys()].sort()).toEqual([FILES.syntaxError, FILES.throwsOnInit].sort());
    expect(byFile.get(FILES.throwsOnInit)).toContain(INIT_ERROR);
    expect(byFile.get(FILES.syntaxError)!.length).toBeGreaterThan(0);
    expect(failed.every((r) => r.level === "error")).toBe(true);
  });

  test("/health answers and counts the plugins", async () => {
    const res = await fetch(`${server.url}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: "ok", plugins: { loaded: 3, failed: 2 } });
  });

  test("GET /control/status lists loaded and failed plugins", async () => {
    const res = await fetch(`${server.url}/control/status`, { headers: admin() });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { plugins: { loaded: Array<{ file: string; kind: string; name: string }>; failed: Array<{ file: string; error: string }> } };
    expect(body.plugins.loaded.map((p) => `${p.kind}:${p.name}`).sort()).toEqual([`provider:${PROVIDER_NAME}`, "strategy:fallback", `strategy:${STRATEGY_NAME}`]);
    expect(body.plugins.failed.map((f) => basename(f.file)).sort()).toEqual([FILES.syntaxError, FILES.throwsOnInit].sort());
  });

  test("the strategy plugin routes its virtual model", async () => {
    const before = anthropic.requests.length;
    const res = await fetch(`${server.url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "anthropic-version": "2023-06-01" },
      body: JSON.stringify({ model: VIRTUAL_MODEL, max_tokens: 64, messages: [{ role: "user", content: "hello plugin" }] }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-svc-strategy")).toBe(STRATEGY_NAME);
    expect(res.headers.get("x-svc-routed-model")).toBe(STRATEGY_TARGET);
    expect(res.headers.get("x-svc-requested-model")).toBe(VIRTUAL_MODEL);
    const body = (await res.json()) as { type: string; content: Array<{ text: string }> };
    expect(body.type).toBe("message");
    expect(body.content[0]!.text).toBe("Hello from fake anthropic");
    const sent = anthropic.requests.slice(before).filter((r) => r.path === "/v1/messages");
    expect(sent.map((r) => r.json.model)).toEqual([STRATEGY_TARGET]);
  });

  test("each answered request is in the run log (written by the run-log writer thread, embedded in the binary)", async () => {
    const res = await fetch(`${server.url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "anthropic-version": "2023-06-01" },
      body: JSON.stringify({ model: VIRTUAL_MODEL, max_tokens: 64, messages: [{ role: "user", content: "log me" }] }),
    });
    expect(res.status).toBe(200);
    await res.text();
    // The record is committed before the response completes, so it is there at once.
    const id = res.headers.get("x-svc-request-id");
    const runs = (await (await fetch(`${server.url}/v1/telemetry/runs?limit=50`, { headers: admin() })).json()) as { runs: Array<{ id: string; status: number }> };
    expect(runs.runs.find((r) => r.id === id)).toMatchObject({ id, status: 200 });
    expect(server.logs().filter((r) => r.msg === "run log write failed")).toEqual([]);
  });

  test("the provider plugin serves its model through its own base URL", async () => {
    const before = openai.requests.length;
    const res = await fetch(`${server.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: `${PROVIDER_NAME}:${PROVIDER_MODEL}`, messages: [{ role: "user", content: "hi" }] }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-svc-provider")).toBe(PROVIDER_NAME);
    const body = (await res.json()) as { choices: Array<{ message: { content: string } }> };
    expect(body.choices[0]!.message.content).toBe("Hello from fake openai");
    const sent = openai.requests.slice(before);
    expect(sent.map((r) => [r.path, r.json.model])).toEqual([["/v1/chat/completions", PROVIDER_MODEL]]);
  });

  test("the user's fallback, replacing the built-in, plans requests for concrete model names", async () => {
    const before = anthropic.requests.length;
    const res = await fetch(`${server.url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "anthropic-version": "2023-06-01" },
      body: JSON.stringify({ model: "claude-sonnet-4-5", max_tokens: 64, messages: [{ role: "user", content: "hello fallback" }] }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-svc-strategy")).toBe("fallback");
    // Its own reasons, and the health it read through the strategy context.
    expect(res.headers.get("x-svc-routing-reasons")).toBe(`${FALLBACK_REASON}; cooling down: false`);
    expect(anthropic.requests.slice(before).map((r) => r.json.model)).toEqual(["claude-sonnet-4-5"]);
  });

  test("the provider plugin serves bare names matching its pattern, and any name after its prefix", async () => {
    const before = openai.requests.length;
    for (const model of [PATTERN_MODEL, `${PROVIDER_NAME}:unlisted-7b`]) {
      const res = await fetch(`${server.url}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model, messages: [{ role: "user", content: "hi" }] }),
      });
      expect(res.status).toBe(200);
      expect(res.headers.get("x-svc-provider")).toBe(PROVIDER_NAME);
      await res.text();
    }
    expect(openai.requests.slice(before).map((r) => r.json.model)).toEqual([PATTERN_MODEL, "unlisted-7b"]);
    // A name neither listed nor matching stays unknown.
    const res = await fetch(`${server.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "echoes-1", messages: [{ role: "user", content: "hi" }] }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("model_not_found");
  });

  test("relay service install --print points ExecStart at this program", async () => {
    const r = await run([...cmd, "service", "install", "--print"], { env: childEnv(home) });
    expect(r.code).toBe(0);
    const execStart = /^ExecStart=(.*)$/m.exec(r.stdout)?.[1];
    // process.execPath is the resolved path (node_modules/.bin/bun is a symlink).
    expect(execStart).toBe([realpathSync(cmd[0]!), ...cmd.slice(1), "start"].join(" "));
    expect(r.stdout).toContain("ProtectSystem=strict");
  });
});
