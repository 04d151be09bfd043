// `relay` from a source checkout, without a build: package.json's bin is
// bin/relay, which runs dist/relay when it is built from the current sources and
// the sources with the installed Bun otherwise. Run through npx in this checkout
// (offline: nothing is fetched), and through npm-style symlinks in a copy of the
// checkout that has no dist/ at all.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, cpSync, mkdirSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeVendor, type FakeVendor } from "../fakes/vendor.ts";
import { VERSION } from "../../src/version.ts";
import { REPO, childEnv, freePort, run, startRelayProcess, tempDir } from "./relay-process.ts";

const home = tempDir("launcher");
const npmEnv = (extra: Record<string, string> = {}) =>
  childEnv(home, { npm_config_offline: "true", npm_config_update_notifier: "false", npm_config_cache: join(home, "npm-cache"), ...extra });

/** A checkout without dist/: its own bin/, src/, deploy/, package.json and the SDK manifest the server reads its version from, the repo's node_modules. */
const checkout = join(home, "checkout");
/** How npm reaches a package's bin: node_modules/.bin/relay → ../relay/bin/relay, node_modules/relay → the checkout. */
const viaNpmLinks = join(home, "npx-cache/node_modules/.bin/relay");

beforeAll(() => {
  mkdirSync(checkout);
  for (const entry of ["bin", "src", "sdk/package.json", "deploy", "package.json"]) cpSync(join(REPO, entry), join(checkout, entry), { recursive: true });
  symlinkSync(join(REPO, "node_modules"), join(checkout, "node_modules"));
  mkdirSync(join(home, "npx-cache/node_modules/.bin"), { recursive: true });
  symlinkSync("../../checkout", join(home, "npx-cache/node_modules/relay"));
  symlinkSync("../relay/bin/relay", viaNpmLinks);
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe("npx relay in this checkout", () => {
  test("package.json's bin is the launcher", async () => {
    const pkg = await Bun.file(join(REPO, "package.json")).json();
    expect(pkg.bin).toEqual({ relay: "bin/relay" });
  });

  test("npx relay --version", async () => {
    const r = await run(["npx", "relay", "--version"], { env: npmEnv(), timeoutMs: 60_000 });
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({ code: 0, stdout: `relay ${VERSION}\n`, stderr: "" });
  });

  describe("npx relay doctor, a provider given without /v1", () => {
    let openai: FakeVendor;
    beforeAll(async () => void (openai = await startFakeVendor("openai")));
    afterAll(async () => void (await openai.close()));

    test("reaches the vendor's model list at /v1/models", async () => {
      const env = npmEnv({ OPENAI_API_KEY: "sk-launcher", OPENAI_BASE_URL: openai.url, RELAY_PORT: String(await freePort()), RELAY_PLUGINS_DIR: join(home, "plugins") });
      const r = await run(["npx", "relay", "doctor"], { env, timeoutMs: 60_000 });
      expect(r.stdout).toMatch(/^PASS\s+reach openai\s.*\/v1\/models answered HTTP 200/m);
      expect(openai.requests.map((q) => `${q.method} ${q.path}`)).toContain("GET /v1/models");
    });
  });
});

describe("a checkout without dist/relay, reached through npm's symlinks", () => {
  test("runs the sources with the installed Bun", async () => {
    const r = await run([viaNpmLinks, "version"], { env: childEnv(home), cwd: home });
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 0, stdout: `relay ${VERSION}\n` });
  });

  test("starts a server, which stops cleanly on SIGTERM (exec: the signal reaches Relay itself)", async () => {
    const relay = await startRelayProcess([viaNpmLinks], { env: childEnv(home, { RELAY_PLUGINS_DIR: join(home, "plugins") }), cwd: home });
    try {
      expect((await fetch(`${relay.url}/health`)).status).toBe(200);
    } finally {
      expect(await relay.stop("SIGTERM")).toBe(0);
    }
    expect(relay.logs().some((l) => l.msg === "stopped")).toBe(true);
  });

  test("usage errors keep Relay's exit code", async () => {
    const r = await run([viaNpmLinks, "frobnicate"], { env: childEnv(home), cwd: home });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown command "frobnicate"');
  });

  test("without Bun it says what to run", async () => {
    const bare = join(home, "bare");
    mkdirSync(bare);
    cpSync(join(checkout, "bin"), join(bare, "bin"), { recursive: true });
    const r = await run([join(bare, "bin/relay"), "version"], { env: { PATH: "/usr/bin:/bin", HOME: home } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("run 'npm install'");
  });
});

describe("the compiled binary", () => {
  const binary = join(checkout, "dist/relay");
  const past = new Date(Date.now() - 3_600_000);
  const future = new Date(Date.now() + 3_600_000);

  beforeAll(() => {
    mkdirSync(join(checkout, "dist"));
    // A stand-in for the build (the real one is tested in tests/plugins/binary.test.ts): says it ran.
    writeFileSync(binary, '#!/bin/sh\necho "compiled binary: $*"\n');
    chmodSync(binary, 0o755);
  });

  test("is run when it is newer than every source file", async () => {
    utimesSync(binary, future, future);
    const r = await run([viaNpmLinks, "status", "--json"], { env: childEnv(home), cwd: home });
    expect(r.stdout).toBe("compiled binary: status --json\n");
  });

  test("is passed over when a source file changed after the build", async () => {
    utimesSync(binary, past, past);
    const r = await run([viaNpmLinks, "version"], { env: childEnv(home), cwd: home });
    expect(r.stdout).toBe(`relay ${VERSION}\n`);
  });
});
