// POST /control/config over real HTTP: every setting marked file-only in the schema is refused (the
// list is read off the schema, so a setting marked later is covered here too), ordinary settings
// still patch, and a patch is bounded in size and depth, and so is the file it produces.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { markedSettings } from "../../src/config/http-editable.ts";
import { startRelay, type TestRelay } from "../helpers/relay.ts";

const ADMIN = "admin-token-for-config-patch-tests";
let relay: TestRelay;
let file: string;

beforeAll(async () => {
  relay = await startRelay({ env: { RELAY_ADMIN_TOKEN: ADMIN }, config: { providers: { anthropic: { enabled: true } } } });
  file = join(relay.home, "config.json");
  // The bounds tests nest free-form options under routing.strategies.probe. Since issue 35 a patch may set
  // options only for a loaded strategy, so `probe` is one, without an options schema (anything goes).
  mkdirSync(join(relay.home, "plugins"), { recursive: true });
  writeFileSync(
    join(relay.home, "plugins", "probe.js"),
    `export default { kind: "strategy", name: "probe", plan: () => ({ candidates: [], mode: "fallback", reasons: [] }) };\n`,
  );
  await relay.relay.loadUserPlugins(1);
});
afterAll(() => relay.stop());

const patch = (body: unknown) =>
  fetch(`${relay.url}/control/config`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${ADMIN}` },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });

/** `{"a":{"b":value}}` from "a.b". */
const at = (path: string, value: unknown): Record<string, unknown> =>
  path.split(".").reduceRight<unknown>((inner, key) => ({ [key]: inner }), value) as Record<string, unknown>;

async function expectRefused(body: unknown, parameter: (p: string) => boolean, label: string): Promise<string> {
  const before = readFileSync(file, "utf8");
  const res = await patch(body);
  const json = (await res.json()) as any;
  const got = { label, status: res.status, code: json.error?.code };
  expect(got).toEqual({ label, status: 403, code: "forbidden_setting" });
  expect(parameter(json.error.details.parameter), `${label}: ${json.error.details.parameter}`).toBe(true);
  expect(json.error.message).toContain(json.error.details.parameter);
  expect(json.request_id).toBeString();
  expect(readFileSync(file, "utf8")).toBe(before);
  return json.error.details.parameter;
}

describe("every marked setting is refused over HTTP", () => {
  const marked = markedSettings();

  test("the schema marks settings to test", () => {
    expect(marked.length).toBeGreaterThanOrEqual(12);
  });

  test("setting each one, for a known and a new map key, names it in a 403", async () => {
    for (const { path } of marked) {
      for (const name of ["anthropic", "brand-new-vendor"]) {
        // The value does not matter: the refusal comes before validation. Marked array items
        // ("x.*") are reached by patching the array whole, and named by the schema's path.
        if (path.endsWith(".*")) {
          const array = path.slice(0, -2).replaceAll("*", name);
          await expectRefused(at(array, ["x"]), (p) => p === `${array}.*`, path);
          continue;
        }
        const concrete = path.replaceAll("*", name);
        await expectRefused(at(concrete, "0.0.0.0"), (p) => p === concrete, concrete);
      }
    }
  });

  test("deleting it, or deleting or replacing any object that holds it, is refused too", async () => {
    for (const { path } of marked) {
      const keys = path.replaceAll("*", "anthropic").split(".");
      for (let n = 1; n <= keys.length; n++) {
        const ancestor = keys.slice(0, n).join(".");
        for (const value of [null, "x", 5]) {
          // The 403 names a marked setting under what the patch replaces.
          await expectRefused(at(ancestor, value), (p) => p === ancestor || p.startsWith(`${ancestor}.`), `${ancestor} = ${JSON.stringify(value)}`);
        }
      }
    }
  });

  test("a whole parent object naming one among ordinary settings is refused by the marked key", async () => {
    const named = await expectRefused({ server: { bodyLimitBytes: 4096, host: "0.0.0.0", port: 4100 } }, () => true, "server object");
    expect(named).toBe("server.host");
    expect(await expectRefused({ limits: { dailyUsd: 1 }, providers: { openai: { enabled: true, baseUrl: "http://attacker.example" } } }, () => true, "providers object")).toBe(
      "providers.openai.baseUrl",
    );
    // Refused means nothing applied, the ordinary part included.
    expect(relay.relay.config().limits.dailyUsd).toBe(0);
  });

  test("setting a marked key to the value it already has is refused as well (the rule looks at keys, not values)", async () => {
    await expectRefused({ server: { host: relay.relay.config().server.host } }, (p) => p === "server.host", "same host");
  });
});

describe("ordinary settings still patch", () => {
  test("routing.enabled, limits.dailyUsd, logLevel and a provider's enabled flag", async () => {
    const res = await patch({ routing: { enabled: false }, limits: { dailyUsd: 5 }, logLevel: "debug", providers: { anthropic: { enabled: false } } });
    expect(res.status).toBe(200);
    const written = JSON.parse(readFileSync(file, "utf8"));
    expect(written).toEqual(expect.objectContaining({ routing: { enabled: false }, limits: { dailyUsd: 5 }, logLevel: "debug" }));
    expect(written.providers.anthropic).toEqual({ enabled: false });
    expect(relay.relay.config().limits.dailyUsd).toBe(5);
    expect((await patch({ routing: { enabled: null }, limits: null, logLevel: null, providers: { anthropic: { enabled: null } } })).status).toBe(200);
    expect(relay.relay.config().routing.enabled).toBe(true);
  });

  test("an empty object under a map holding marked settings changes nothing marked and passes", async () => {
    expect((await patch({ providers: { anthropic: {} }, store: {}, server: {} })).status).toBe(200);
  });
});

describe("a patch and the file it produces are bounded", () => {
  const strategy = (value: unknown) => ({ routing: { strategies: { probe: value } } });
  const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;

  async function expectError(body: string, status: number, code: string): Promise<void> {
    const before = readFileSync(file, "utf8");
    const res = await patch(body);
    const json = (await res.json()) as any;
    expect({ status: res.status, code: json.error?.code }).toEqual({ status, code });
    expect(json.error.message).toBeString();
    expect(json.request_id).toBeString();
    expect(readFileSync(file, "utf8")).toBe(before);
  }

  test("a body over 64 KB is a 413", async () => {
    await expectError(JSON.stringify(strategy({ note: "x".repeat(64 * 1024) })), 413, "request_too_large");
  });

  test("nesting past 16 levels is a 400 before parsing; 16 levels and brackets inside strings are fine", async () => {
    // routing.strategies.probe is 3 levels with the outer object; the rest is the nested value.
    await expectError(`{"routing":{"strategies":{"probe":${nested(14)}}}}`, 400, "invalid_request");
    await expectError(`{"routing":{"strategies":{"probe":{"a":${"[".repeat(20_000)}${"]".repeat(20_000)}}}}}`, 400, "invalid_request");
    expect((await patch(`{"routing":{"strategies":{"probe":${nested(13)}}}}`)).status).toBe(200);
    expect((await patch(strategy({ note: `"${"[{".repeat(200)}` }))).status).toBe(200);
    expect((await patch({ routing: { strategies: { probe: null } } })).status).toBe(200);
  });

  test("a patch whose file would pass 1 MB is a 413; a file already over 1 MB or nested too deep is a 409", async () => {
    const original = readFileSync(file, "utf8");
    try {
      writeFileSync(file, JSON.stringify(strategy({ note: "y".repeat(1000 * 1000) })));
      await expectError(JSON.stringify(strategy({ more: "z".repeat(60 * 1000) })), 413, "config_too_large");
      writeFileSync(file, JSON.stringify(strategy({ note: "y".repeat(1100 * 1000) })));
      await expectError(JSON.stringify({ logLevel: "warn" }), 409, "config_unreadable");
      writeFileSync(file, JSON.stringify(strategy(JSON.parse(nested(40)))));
      await expectError(JSON.stringify({ logLevel: "warn" }), 409, "config_unreadable");
    } finally {
      writeFileSync(file, original);
    }
  });
});
