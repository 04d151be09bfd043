// `relay start` says, once per provider, where its key comes from and which base
// URL it found: human-readable lines on stderr (stdout carries the JSON log) and
// one structured "providers" log line. Never a key, nor a password in a URL.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { builtinProviders } from "../../src/providers/index.ts";
import { FROM_SOURCE, childEnv, startRelayProcess, tempDir, type RunningRelay } from "./relay-process.ts";

const home = tempDir("startup-providers");
const ENV_KEY = "sk-startup-env-secret-7Qx2Lm9Pz4";
const FILE_KEY = "gsk-startup-file-secret-Hk3Vn8Rt1";
const URL_PASSWORD = "urlPw-Zx91Qa";
let relay: RunningRelay;

beforeAll(async () => {
  writeFileSync(
    join(home, "config.json"),
    JSON.stringify({
      providers: {
        groq: { apiKey: FILE_KEY },
        mistral: { enabled: false },
        anthropic: { baseUrl: `http://relay:${URL_PASSWORD}@anthropic-proxy.example/v1` },
      },
    }),
  );
  relay = await startRelayProcess(FROM_SOURCE, {
    env: childEnv(home, {
      OPENAI_API_KEY: ENV_KEY,
      OPENAI_BASE_URL: "https://api.openai.com",
      RELAY_OLLAMA_BASE_URL: "gpu-box:11434/api",
      RELAY_PLUGINS_DIR: join(home, "plugins"),
    }),
  });
  await relay.waitForLog((r) => r.msg === "providers");
});
afterAll(async () => {
  await relay?.stop();
  rmSync(home, { recursive: true, force: true });
});

/** `relay: <name>  key <source>  base <url> (<from>)[  (disabled in the config)]` */
const LINE = /^relay: (\S+)\s+key (.+?)\s+base (\S+) \((\S+)\)(  \(disabled in the config\))?$/;

function lines(): Map<string, { key: string; base: string; from: string; disabled: boolean }> {
  const byName = new Map<string, { key: string; base: string; from: string; disabled: boolean }>();
  for (const line of relay.stderr().trimEnd().split("\n")) {
    const m = LINE.exec(line);
    if (!m) throw new Error(`not a provider line: ${JSON.stringify(line)}`);
    byName.set(m[1]!, { key: m[2]!, base: m[3]!, from: m[4]!, disabled: m[5] !== undefined });
  }
  return byName;
}

describe("start-up lines", () => {
  test("one line on stderr per provider, nothing else there", () => {
    const byName = lines();
    expect([...byName.keys()]).toEqual(builtinProviders.map((p) => p.name));
  });

  test("each names the key's source and the base URL in the form Relay calls, with where it came from", () => {
    const byName = lines();
    expect(byName.get("openai")).toEqual({ key: "OPENAI_API_KEY", base: "https://api.openai.com/v1", from: "OPENAI_BASE_URL", disabled: false });
    expect(byName.get("groq")).toEqual({ key: "providers.groq.apiKey", base: "https://api.groq.com/openai/v1", from: "default", disabled: false });
    expect(byName.get("ollama")).toEqual({ key: "not needed", base: "http://gpu-box:11434", from: "RELAY_OLLAMA_BASE_URL", disabled: false });
    expect(byName.get("anthropic")).toEqual({
      key: "none (clients may send their own)",
      base: "http://[redacted]@anthropic-proxy.example",
      from: "providers.anthropic.baseUrl",
      disabled: false,
    });
    expect(byName.get("google")).toMatchObject({ base: "https://generativelanguage.googleapis.com", from: "default" });
    expect(byName.get("xai")).toEqual({ key: "none", base: "https://api.x.ai/v1", from: "default", disabled: false });
    expect(byName.get("mistral")).toMatchObject({ key: "none", disabled: true });
  });

  test("the structured log line carries the same facts", () => {
    const rec = relay.logs().find((r) => r.msg === "providers")!;
    expect(rec.level).toBe("info");
    expect(rec.providers).toHaveLength(builtinProviders.length);
    expect(rec.providers.find((p: { provider: string }) => p.provider === "openai")).toEqual({
      provider: "openai",
      keyFrom: "OPENAI_API_KEY",
      baseUrl: "https://api.openai.com/v1",
      baseUrlFrom: "OPENAI_BASE_URL",
      enabled: true,
    });
    // After "relay listening": the address first, then what it will call.
    const order = relay.logs().map((r) => r.msg);
    expect(order.indexOf("providers")).toBe(order.indexOf("relay listening") + 1);
  });

  test("no key and no URL password appears in any output", () => {
    const all = `${relay.stdout()}\n${relay.stderr()}`;
    for (const secret of [ENV_KEY, FILE_KEY, URL_PASSWORD]) expect({ secret, found: all.includes(secret) }).toEqual({ secret, found: false });
    // Not even a recognisable part of one.
    expect(all).not.toContain("7Qx2Lm9Pz4");
    expect(all).not.toContain("Hk3Vn8Rt1");
  });
});
