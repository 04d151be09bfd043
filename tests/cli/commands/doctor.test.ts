// `relay doctor` as a subprocess: one provider reachable (a fake vendor), one
// pointing at a closed port, the port check and the config check.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { closedPort, startFakeVendor, type FakeVendor } from "../../fakes/vendor.ts";
import { FROM_SOURCE, childEnv, freePort, run, startRelayProcess, tempDir } from "../relay-process.ts";

const home = tempDir("doctor");
let openai: FakeVendor;
let env: Record<string, string>;

/** The table row of a check, e.g. row(out, "reach openai") → "PASS    reach openai  http://…". */
const row = (stdout: string, check: string) => stdout.split("\n").find((l) => new RegExp(`^\\w+\\s+${check}\\s`).test(l));

beforeAll(async () => {
  openai = await startFakeVendor("openai");
  const port = await freePort();
  env = childEnv(home, {
    OPENAI_API_KEY: "sk-openai",
    OPENAI_BASE_URL: `${openai.url}/v1`,
    ANTHROPIC_API_KEY: "sk-ant",
    ANTHROPIC_BASE_URL: `http://127.0.0.1:${await closedPort()}`,
    RELAY_PORT: String(port),
    RELAY_PLUGINS_DIR: join(home, "plugins"), // an empty folder: the checkout's plugins/ must not matter
  });
});
afterAll(async () => {
  await openai.close();
  rmSync(home, { recursive: true, force: true });
});

describe("relay doctor", () => {
  test("a reachable provider passes, an unreachable one fails, and the exit code is 1", async () => {
    const r = await run([...FROM_SOURCE, "doctor"], { env });
    expect(r.code).toBe(1);
    expect(row(r.stdout, "reach openai")).toMatch(/^PASS .*answered HTTP \d{3}/);
    expect(row(r.stdout, "reach anthropic")).toMatch(/^FAIL .*127\.0\.0\.1/);
    expect(row(r.stdout, "key openai")).toMatch(/^PASS .*OPENAI_API_KEY/);
    expect(row(r.stdout, "key anthropic")).toMatch(/^PASS .*ANTHROPIC_API_KEY/);
    expect(row(r.stdout, "key groq")).toMatch(/^SKIP /);
    expect(row(r.stdout, "reach groq")).toBeUndefined(); // no key: not called
    expect(row(r.stdout, "config")).toMatch(/^PASS .*not found; defaults in use/);
    expect(row(r.stdout, "port")).toMatch(/^PASS .*is free/);
    expect(row(r.stdout, "plugins")).toMatch(/^PASS /);
    expect(r.stdout).toContain("1 check failed");
    expect(openai.requests.length).toBeGreaterThan(0);
  });

  test("everything reachable: exit 0", async () => {
    const { ANTHROPIC_API_KEY: _k, ANTHROPIC_BASE_URL: _u, ...rest } = env;
    // Configured tiers are checked against the keys: name openai models.
    const config = join(home, "openai-only.json");
    writeFileSync(config, JSON.stringify({ routing: { strategies: { complexity: { tiers: { simple: "gpt-5-nano", moderate: "gpt-5-mini", complex: "gpt-5" } } } } }));
    const r = await run([...FROM_SOURCE, "doctor", "--config", config], { env: rest });
    expect(r.stdout).toContain("all checks passed");
    expect(r.code).toBe(0);
    expect(row(r.stdout, "key anthropic")).toMatch(/^SKIP /);
  });

  test("a configured routing tier whose provider has no key fails; the default tiers follow the keys", async () => {
    const { ANTHROPIC_API_KEY: _k, ...rest } = env;
    const config = join(home, "claude-tiers.json");
    writeFileSync(config, JSON.stringify({ routing: { strategies: { complexity: { tiers: { simple: "claude-haiku-4-5", moderate: "claude-sonnet-4-5", complex: "claude-opus-4-5" } } } } }));
    const r = await run([...FROM_SOURCE, "doctor", "--config", config], { env: rest });
    expect(r.code).toBe(1);
    expect(row(r.stdout, "key anthropic")).toMatch(/^FAIL .*ANTHROPIC_API_KEY is not set, but routing tier \w+ uses claude-/);
    const byDefault = await run([...FROM_SOURCE, "doctor"], { env: rest });
    expect(row(byDefault.stdout, "key anthropic")).toMatch(/^SKIP /);
  });

  test("an invalid config file fails the config check; the other checks still run", async () => {
    const bad = join(home, "bad.json");
    writeFileSync(bad, JSON.stringify({ server: { port: "abc" } }));
    const r = await run([...FROM_SOURCE, "doctor", "--config", bad], { env });
    expect(r.code).toBe(1);
    expect(row(r.stdout, "config")).toMatch(/^FAIL .*\/server\/port/);
    expect(row(r.stdout, "reach openai")).toMatch(/^PASS /);
  });

  test("a port served by a healthy Relay passes; a port held by something else fails", async () => {
    const relayHome = tempDir("doctor-relay");
    const relay = await startRelayProcess(FROM_SOURCE, { env: childEnv(relayHome) });
    const other = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("not relay", { status: 404 }) });
    try {
      const served = await run([...FROM_SOURCE, "doctor", "--port", new URL(relay.url).port], { env });
      expect(row(served.stdout, "port")).toMatch(/^PASS .*served by a healthy Relay/);
      const taken = await run([...FROM_SOURCE, "doctor", "--port", String(other.port)], { env });
      expect(row(taken.stdout, "port")).toMatch(/^FAIL .*in use by another program/);
    } finally {
      other.stop(true);
      await relay.stop();
      rmSync(relayHome, { recursive: true, force: true });
    }
  });

  test("RELAY_<PROVIDER>_BASE_URL wins over the vendor's variable; a base URL that is Relay's own address fails", async () => {
    // The vendor's variable names a closed port (env); Relay's own names a server with a model list.
    const r = await run([...FROM_SOURCE, "doctor"], { env: { ...env, RELAY_ANTHROPIC_BASE_URL: openai.url } });
    expect(row(r.stdout, "reach anthropic")).toMatch(/^PASS .*\/v1\/models answered HTTP 200 with a model list/);
    expect(row(r.stdout, "loop anthropic")).toBeUndefined();
    const looped = await run([...FROM_SOURCE, "doctor"], { env: { ...env, ANTHROPIC_BASE_URL: `http://localhost:${env.RELAY_PORT}` } });
    expect(row(looped.stdout, "loop anthropic")).toMatch(/^FAIL .*ANTHROPIC_BASE_URL points back at this Relay .*set RELAY_ANTHROPIC_BASE_URL/);
    expect(looped.code).toBe(1);
  });

  test("a plugin that fails to load is reported with its file", async () => {
    const plugins = tempDir("doctor-plugins");
    writeFileSync(join(plugins, "broken.ts"), "export default { kind: 'nonsense' };\n");
    const r = await run([...FROM_SOURCE, "doctor"], { env: { ...env, RELAY_PLUGINS_DIR: plugins } });
    expect(r.code).toBe(1);
    expect(row(r.stdout, "plugins")).toMatch(/^FAIL .*1 failed/);
    expect(row(r.stdout, "plugin")).toContain(join(plugins, "broken.ts"));
    rmSync(plugins, { recursive: true, force: true });
  });

  test("output is plain text when not on a terminal", async () => {
    const r = await run([...FROM_SOURCE, "doctor"], { env });
    expect(r.stdout).not.toContain("\x1b[");
    expect(r.stderr).toBe(""); // no spinner either
  });
});
