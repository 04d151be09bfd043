// The rule behind /control/config's refusals: settings marked fileOnly(kind) in the schema, found by a
// generic walk, so a setting added and marked later is refused without a list to keep up to date.
// (Over HTTP: tests/security/config-patch.test.ts.)
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type TSchema, Type as T } from "@sinclair/typebox";
import { firstFileOnlySetting, markedSettings } from "../../src/config/http-editable.ts";
import { nestsDeeperThan } from "../../src/config/json-depth.ts";
import { loadConfig } from "../../src/config/load.ts";
import { fileOnly } from "../../src/config/schema.ts";

const KINDS = ["endpoint", "secret", "listen", "path"];

describe("the marking in the config schema", () => {
  const marked = markedSettings();

  test("every setting naming where keys or data go, a secret, a listen address or a path is marked", () => {
    const paths = marked.map((m) => m.path);
    // The settings the issue names; more may be marked, none of these may lose its mark.
    const required = {
      "providers.*.baseUrl": "endpoint",
      "providers.*.apiKey": "secret",
      adminToken: "secret",
      "store.postgresUrl": "secret",
      "server.host": "listen",
      "server.port": "listen",
      "server.corsOrigins": "listen",
      "server.allowedHosts": "listen",
      "cloud.host": "listen",
      "cloud.port": "listen",
      pluginsDirs: "path",
      dataDir: "path",
      "store.driver": "path",
    };
    for (const [path, kind] of Object.entries(required)) expect({ path, kind: marked.find((m) => m.path === path)?.kind as string | undefined }).toEqual({ path, kind });
    for (const m of marked) expect(KINDS).toContain(m.kind);
    expect(new Set(paths).size).toBe(paths.length);
  });

  test("ordinary settings are not marked", () => {
    for (const path of ["routing.enabled", "limits.dailyUsd", "logLevel", "providers.*.enabled", "routing.strategies", "models", "telemetry.retentionDays"]) {
      expect(marked.map((m) => m.path)).not.toContain(path);
    }
  });

  test("the editor schema (schema/config.schema.json) carries every mark", () => {
    const shipped = JSON.parse(readFileSync(join(import.meta.dir, "../../schema/config.schema.json"), "utf8")) as TSchema;
    expect(markedSettings(shipped)).toEqual(marked);
    const provider = Object.values(shipped.properties.providers.patternProperties as Record<string, TSchema>)[0]!;
    expect(provider.properties.baseUrl).toEqual(expect.objectContaining({ httpEditable: false, fileOnly: "endpoint" }));
  });

  test("marked settings still load from the file, the environment and flags", () => {
    const loaded = loadConfig({
      file: "/nonexistent/config.json",
      fileText: JSON.stringify({ providers: { anthropic: { baseUrl: "http://vendor.example" } }, pluginsDirs: ["/opt/plugins"], server: { corsOrigins: ["http://a.example"] } }),
      env: { RELAY_HOST: "0.0.0.0", RELAY_ADMIN_TOKEN: "a-token-long-enough-0000" },
      flags: { server: { port: 4999 } },
    });
    expect(loaded.config.providers.anthropic?.baseUrl).toBe("http://vendor.example");
    expect(loaded.config.pluginsDirs).toEqual(["/opt/plugins"]);
    expect(loaded.config.server).toEqual(expect.objectContaining({ host: "0.0.0.0", port: 4999, corsOrigins: ["http://a.example"] }));
    expect(loaded.config.adminToken).toBe("a-token-long-enough-0000");
  });
});

describe("the walk is generic: a setting marked later is covered", () => {
  // A schema shaped like a future config: a webhook URL under an object, a secret in a map's values,
  // an endpoint inside array items and inside one branch of a union.
  const Future = T.Object({
    logLevel: T.String(),
    webhooks: T.Object({ url: T.String(fileOnly("endpoint")), retries: T.Integer() }),
    mesh: T.Record(T.String(), T.Object({ token: T.Optional(T.String(fileOnly("secret"))), weight: T.Optional(T.Number()) })),
    mirrors: T.Array(T.Object({ url: T.String(fileOnly("endpoint")) })),
    sink: T.Union([T.Literal("off"), T.Object({ file: T.String(fileOnly("path")) })]),
  });

  test("markedSettings finds them", () => {
    expect(markedSettings(Future)).toEqual([
      { path: "webhooks.url", kind: "endpoint" },
      { path: "mesh.*.token", kind: "secret" },
      { path: "mirrors.*.url", kind: "endpoint" },
      { path: "sink.file", kind: "path" },
    ]);
  });

  test("a patch setting, deleting or replacing one, or an object holding one, is caught by its path", () => {
    const cases: Array<[unknown, string]> = [
      [{ webhooks: { url: "http://evil.example" } }, "webhooks.url"],
      [{ webhooks: { retries: 2, url: null } }, "webhooks.url"],
      [{ webhooks: null }, "webhooks.url"],
      [{ webhooks: "x" }, "webhooks.url"],
      [{ mesh: { "peer-1": { token: "t" } } }, "mesh.peer-1.token"],
      [{ mesh: { "peer-1": null } }, "mesh.peer-1.token"],
      [{ mesh: null }, "mesh.*.token"],
      [{ mirrors: [{ url: "http://evil.example" }] }, "mirrors.*.url"],
      [{ sink: { file: "/tmp/x" } }, "sink.file"],
      [{ sink: "off" }, "sink.file"],
    ];
    for (const [patch, path] of cases) expect({ patch, hit: firstFileOnlySetting(patch, Future)?.path }).toEqual({ patch, hit: path });
  });

  test("a patch of unmarked settings only passes", () => {
    for (const patch of [{ logLevel: "debug" }, { webhooks: { retries: 3 } }, { mesh: { "peer-1": { weight: 2 } } }, { mesh: { p: {} } }, { webhooks: {} }, {}]) {
      expect(firstFileOnlySetting(patch, Future)).toBeUndefined();
    }
  });

  test("prototype names do not reach Object.prototype's members", () => {
    for (const key of ["__proto__", "constructor", "toString", "hasOwnProperty"]) {
      const patch = JSON.parse(`{${JSON.stringify(key)}:{"url":"x"},"webhooks":{${JSON.stringify(key)}:1}}`);
      expect(firstFileOnlySetting(patch, Future)).toBeUndefined();
    }
    expect(firstFileOnlySetting(JSON.parse('{"mesh":{"__proto__":{"token":"t"}}}'), Future)?.path).toBe("mesh.__proto__.token");
  });

  test("the real schema: whole parents and map entries are caught", () => {
    expect(firstFileOnlySetting({ server: { bodyLimitBytes: 2048, host: "0.0.0.0" } })?.path).toBe("server.host");
    expect(firstFileOnlySetting({ server: null })?.path).toBe("server.host");
    expect(firstFileOnlySetting({ providers: { "brand-new": { baseUrl: "http://x.example" } } })?.path).toBe("providers.brand-new.baseUrl");
    expect(firstFileOnlySetting({ providers: { anthropic: null } })?.path).toBe("providers.anthropic.apiKey");
    expect(firstFileOnlySetting({ store: {} })).toBeUndefined();
    expect(firstFileOnlySetting({ providers: { anthropic: { enabled: false } } })).toBeUndefined();
  });
});

describe("nesting depth is measured without parsing", () => {
  test("objects and arrays count; brackets in strings and escaped quotes do not", () => {
    expect(nestsDeeperThan('{"a":{"b":[1]}}', 3)).toBe(false);
    expect(nestsDeeperThan('{"a":{"b":[1]}}', 2)).toBe(true);
    expect(nestsDeeperThan(`{"a":"${"[{".repeat(100)}"}`, 1)).toBe(false);
    expect(nestsDeeperThan('{"a":"\\"[[[[","b":1}', 1)).toBe(false);
    expect(nestsDeeperThan('{"a":"\\\\","b":[[1]]}', 2)).toBe(true);
  });

  test("a hundred thousand levels are refused in one pass, without a stack overflow", () => {
    const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    const t0 = performance.now();
    expect(nestsDeeperThan(deep, 16)).toBe(true);
    expect(nestsDeeperThan(`{"a":${deep.slice(99_990, 100_010)}}`, 16)).toBe(false);
    console.log(`depth scan of 200 KB: ${(performance.now() - t0).toFixed(2)} ms`);
  });
});
