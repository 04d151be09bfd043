// Layered configuration: defaults < file < env < flags, with the layer of
// every leaf reported, and errors that name the file, the JSON path and what
// was expected.
import { afterAll, describe, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError, defaults, loadConfig } from "../../src/config/load.ts";
import { tempDir } from "../cli/relay-process.ts";

const dir = tempDir("config");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
function configFile(content: unknown): string {
  const file = join(dir, `config-${++n}.json`);
  writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content));
  return file;
}

function loadError(run: () => unknown): ConfigError {
  try {
    run();
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return e as ConfigError;
  }
  throw new Error("expected a ConfigError");
}

describe("the editor schema", () => {
  // Guards the README's advice: a file that names its schema, and sets only a few keys, loads and is
  // not flagged by an editor (only keys without a default are required there).
  test("a config file may carry $schema and leave out every key that has a default", async () => {
    const file = configFile({ $schema: "./schema/config.schema.json", logLevel: "warn" });
    expect(loadConfig({ file, env: {} }).config.logLevel).toBe("warn");
    const schema = await Bun.file(join(import.meta.dir, "../../schema/config.schema.json")).json();
    expect(schema.required).toBeUndefined();
    expect(schema.properties.server.required).toBeUndefined();
    expect(schema.properties.models.items.required).toEqual(["id", "provider"]);
  });
});

describe("layering", () => {
  const file = configFile({ server: { port: 5000, host: "127.0.0.2" }, logLevel: "warn", limits: { rpmDefault: 7 } });

  test("with no file and no env, every leaf is a default", () => {
    const { config, sources, fileExists } = loadConfig({ file: join(dir, "absent.json"), env: {} });
    expect(fileExists).toBe(false);
    expect(config).toEqual(defaults());
    expect(config.server.port).toBe(4100);
    expect(new Set(Object.values(sources))).toEqual(new Set(["default"]));
    expect(sources["/server/port"]).toBe("default");
  });

  test("the file overrides defaults", () => {
    const { config, sources } = loadConfig({ file, env: {} });
    expect(config.server.port).toBe(5000);
    expect(config.logLevel).toBe("warn");
    expect(config.limits.rpmDefault).toBe(7);
    // Siblings the file does not mention keep their defaults.
    expect(config.server.bodyLimitBytes).toBe(defaults().server.bodyLimitBytes);
    expect(sources["/server/port"]).toBe("file");
    expect(sources["/logLevel"]).toBe("file");
    expect(sources["/server/bodyLimitBytes"]).toBe("default");
  });

  test("env overrides the file", () => {
    const { config, sources } = loadConfig({ file, env: { RELAY_PORT: "6000", RELAY_LOG_LEVEL: "debug" } });
    expect(config.server.port).toBe(6000);
    expect(config.logLevel).toBe("debug");
    expect(config.server.host).toBe("127.0.0.2");
    expect(sources["/server/port"]).toBe("env");
    expect(sources["/logLevel"]).toBe("env");
    expect(sources["/server/host"]).toBe("file");
    expect(sources["/limits/rpmDefault"]).toBe("file");
  });

  test("flags override env", () => {
    const { config, sources } = loadConfig({ file, env: { RELAY_PORT: "6000", RELAY_HOST: "127.0.0.3" }, flags: { server: { port: 7000 } } });
    expect(config.server.port).toBe(7000);
    expect(config.server.host).toBe("127.0.0.3");
    expect(sources["/server/port"]).toBe("flag");
    expect(sources["/server/host"]).toBe("env");
    expect(sources["/logLevel"]).toBe("file");
    expect(sources["/cloud/port"]).toBe("default");
  });

  test("an array from a higher layer replaces the lower one and is reported as one leaf", () => {
    const withDirs = configFile({ pluginsDirs: ["/a", "/b"] });
    const fromFile = loadConfig({ file: withDirs, env: {} });
    expect(fromFile.config.pluginsDirs).toEqual(["/a", "/b"]);
    expect(fromFile.sources["/pluginsDirs"]).toBe("file");
    const fromEnv = loadConfig({ file: withDirs, env: { RELAY_PLUGINS_DIR: "/c:/d" } });
    expect(fromEnv.config.pluginsDirs).toEqual(["/c", "/d"]);
    expect(fromEnv.sources["/pluginsDirs"]).toBe("env");
  });

  test("RELAY_POSTGRES_URL selects the postgres store from env", () => {
    const { config, sources } = loadConfig({ file, env: { RELAY_POSTGRES_URL: "postgres://u:p@db/relay" } });
    expect(config.store).toEqual({ driver: "postgres", postgresUrl: "postgres://u:p@db/relay" });
    expect(sources["/store/driver"]).toBe("env");
  });

  test("provider base URLs in the file are accepted (uri format)", () => {
    const f = configFile({ providers: { openai: { baseUrl: "https://proxy.example/v1", apiKey: "sk-x" } } });
    expect(loadConfig({ file: f, env: {} }).config.providers.openai?.baseUrl).toBe("https://proxy.example/v1");
    const bad = configFile({ providers: { openai: { baseUrl: "not a url" } } });
    expect(loadError(() => loadConfig({ file: bad, env: {} })).message).toContain("/providers/openai/baseUrl");
  });
});

describe("file errors name the file, the JSON path and the expectation", () => {
  test("wrong type", () => {
    const file = configFile({ server: { port: "abc" } });
    const e = loadError(() => loadConfig({ file, env: {} }));
    expect(e.message).toContain(file);
    expect(e.message).toContain("/server/port");
    expect(e.message.toLowerCase()).toContain("integer");
    expect(e.message).toContain('"abc"');
  });

  test("out of range", () => {
    const file = configFile({ server: { port: 70000 } });
    const e = loadError(() => loadConfig({ file, env: {} }));
    expect(e.message).toContain(file);
    expect(e.message).toContain("/server/port");
    expect(e.message).toContain("65535");
  });

  test("a bad enum value lists the allowed values", () => {
    const file = configFile({ logLevel: "loud" });
    const e = loadError(() => loadConfig({ file, env: {} }));
    expect(e.message).toContain("/logLevel");
    for (const level of ["debug", "info", "warn", "error"]) expect(e.message).toContain(`"${level}"`);
  });

  test("unknown keys are rejected at any depth", () => {
    const top = configFile({ sever: { port: 1 } });
    const e1 = loadError(() => loadConfig({ file: top, env: {} }));
    expect(e1.message).toContain(top);
    expect(e1.message).toContain("/sever");
    const nested = configFile({ server: { prot: 1 } });
    const e2 = loadError(() => loadConfig({ file: nested, env: {} }));
    expect(e2.message).toContain("/server/prot");
    expect(e2.message).toContain("Unexpected property");
  });

  test("invalid JSON", () => {
    const file = configFile('{"server": {"port": 1,}');
    const e = loadError(() => loadConfig({ file, env: {} }));
    expect(e.message).toContain(file);
    expect(e.message).toContain("not valid JSON");
  });

  test("a JSON value that is not an object", () => {
    const file = configFile("[1, 2]");
    const e = loadError(() => loadConfig({ file, env: {} }));
    expect(e.message).toContain(file);
    expect(e.message).toContain("expected an object");
  });

  test("a file named explicitly must exist; an implicit one may be absent", () => {
    const missing = join(dir, "nope.json");
    const e = loadError(() => loadConfig({ file: missing, env: {}, requireFile: true }));
    expect(e.message).toContain(missing);
    expect(e.message).toContain("does not exist");
    expect(loadConfig({ file: missing, env: {} }).fileExists).toBe(false);
  });
});

describe("env and flag errors", () => {
  const file = join(dir, "absent.json");

  test("RELAY_PORT that is not a number names the variable", () => {
    const e = loadError(() => loadConfig({ file, env: { RELAY_PORT: "abc" } }));
    expect(e.message).toContain("RELAY_PORT");
    expect(e.message).toContain('"abc"');
  });

  test("an out-of-range env value is attributed to the environment, not the file", () => {
    const e = loadError(() => loadConfig({ file, env: { RELAY_PORT: "99999" } }));
    expect(e.message).toStartWith("environment");
    expect(e.message).toContain("/server/port");
    expect(e.message).not.toContain(file);
  });

  test("a short admin token is refused", () => {
    const e = loadError(() => loadConfig({ file, env: { RELAY_ADMIN_TOKEN: "sh0rt-s3cret" } }));
    expect(e.message).toContain("/adminToken");
    expect(e.message).toContain("16");
    // The message goes to stderr and logs, so the secret itself is masked.
    expect(e.message).not.toContain("sh0rt-s3cret");
  });

  test("an invalid URL with credentials is reported without its password", () => {
    const f = configFile({ providers: { openai: { baseUrl: "ftp://user:hunter2@ bad" } } });
    const e = loadError(() => loadConfig({ file: f, env: {} }));
    expect(e.message).toContain("/providers/openai/baseUrl");
    expect(e.message).not.toContain("hunter2");
  });

  test("a bad flag value is attributed to the command line", () => {
    const e = loadError(() => loadConfig({ file, env: {}, flags: { server: { port: 70000 } } }));
    expect(e.message).toStartWith("command-line flag");
    expect(e.message).toContain("/server/port");
  });
});
