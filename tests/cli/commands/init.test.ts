// `relay init` as a subprocess: scripted with flags, the overwrite rule, keys
// kept out of the file unless asked, bad flags, and the wizard on a pseudo-terminal.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../../src/config/load.ts";
import { FROM_SOURCE, REPO, childEnv, run, tempDir } from "../relay-process.ts";

const homes: string[] = [];
afterAll(() => {
  for (const h of homes) rmSync(h, { recursive: true, force: true });
});
function newHome(): string {
  const h = tempDir("init");
  homes.push(h);
  return h;
}
const init = (home: string, args: string[], extraEnv: Record<string, string> = {}) => run([...FROM_SOURCE, "init", ...args], { env: childEnv(home, extraEnv) });
const written = (home: string) => JSON.parse(readFileSync(join(home, "config.json"), "utf8"));

const SCRIPTED = ["--yes", "--tier-simple", "gpt-5-nano", "--tier-moderate", "claude-sonnet-4-5", "--tier-complex", "gemini-2.5-pro", "--daily-budget", "20", "--hourly-budget", "2.5", "--port", "4321"];

describe("relay init --yes", () => {
  test("writes the chosen tiers, budgets and port to $RELAY_HOME/config.json, and Relay loads it", async () => {
    const home = newHome();
    const r = await init(home, SCRIPTED);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`wrote ${join(home, "config.json")}`);
    const file = written(home);
    expect(file.routing.strategies.complexity.tiers).toEqual({ simple: "gpt-5-nano", moderate: "claude-sonnet-4-5", complex: "gemini-2.5-pro" });
    expect(file.routing.strategies.cascade.chain).toEqual(["gpt-5-nano", "claude-sonnet-4-5", "gemini-2.5-pro"]);
    expect(file.limits).toEqual({ dailyUsd: 20, hourlyUsd: 2.5 });
    expect(file.server).toEqual({ port: 4321 });
    const { config } = loadConfig({ file: join(home, "config.json"), env: {} });
    expect(config.server.port).toBe(4321);
    // Defaults the file did not name survive the merge.
    expect((config.routing.strategies.cascade as { maxEscalations: number }).maxEscalations).toBe(2);
  });

  test("--config writes to the named file", async () => {
    const home = newHome();
    const target = join(home, "nested", "relay.json");
    const r = await init(home, [...SCRIPTED, "--config", target]);
    expect(r.code).toBe(0);
    expect(JSON.parse(readFileSync(target, "utf8")).server.port).toBe(4321);
    expect(existsSync(join(home, "config.json"))).toBe(false);
  });

  test("picks tier models from the providers whose keys are in the environment", async () => {
    const home = newHome();
    const r = await init(home, ["--yes"], { GEMINI_API_KEY: "g-key" });
    expect(r.code).toBe(0);
    expect(written(home).routing.strategies.complexity.tiers).toEqual({ simple: "gemini-2.5-flash-lite", moderate: "gemini-2.5-flash", complex: "gemini-2.5-pro" });
  });

  test("keys found in the environment stay out of the file unless --save-keys", async () => {
    const home = newHome();
    const r = await init(home, ["--yes"], { OPENAI_API_KEY: "sk-secret-openai" });
    expect(r.code).toBe(0);
    expect(readFileSync(join(home, "config.json"), "utf8")).not.toContain("sk-secret-openai");
    expect(r.stdout).toContain("not written to the file");
    const saved = await init(home, ["--yes", "--force", "--save-keys"], { OPENAI_API_KEY: "sk-secret-openai" });
    expect(saved.code).toBe(0);
    expect(written(home).providers).toEqual({ openai: { apiKey: "sk-secret-openai" } });
  });

  test("refuses to overwrite an existing file without --force", async () => {
    const home = newHome();
    writeFileSync(join(home, "config.json"), '{"logLevel":"debug"}\n');
    const r = await init(home, SCRIPTED);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("--force");
    expect(readFileSync(join(home, "config.json"), "utf8")).toBe('{"logLevel":"debug"}\n');
    const forced = await init(home, [...SCRIPTED, "--force"]);
    expect(forced.code).toBe(0);
    expect(written(home).limits.dailyUsd).toBe(20);
  });

  test("without a terminal it does not ask, even without --yes", async () => {
    const home = newHome();
    const r = await init(home, ["--tier-simple", "gpt-5-nano"]);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain("Model for simple requests");
    expect(written(home).routing.strategies.complexity.tiers.simple).toBe("gpt-5-nano");
  });

  test("an unknown model, a bad budget, a bad port or an unknown flag exits 2 and writes nothing", async () => {
    const home = newHome();
    const cases: Array<[string[], string]> = [
      [["--tier-simple", "gpt-5-nanoo"], "gpt-5-nano"],
      [["--daily-budget", "lots"], "--daily-budget"],
      [["--port", "70000"], "port"],
      [["--budget", "5"], "--budget"],
    ];
    for (const [args, fragment] of cases) {
      const r = await init(home, ["--yes", ...args]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(fragment);
    }
    expect(existsSync(join(home, "config.json"))).toBe(false);
  });

  test("--help describes the flags", async () => {
    const r = await init(newHome(), ["--help"]);
    expect(r.code).toBe(0);
    for (const flag of ["--tier-simple", "--daily-budget", "--force", "--save-keys", "--yes"]) expect(r.stdout).toContain(flag);
  });
});

// The wizard needs a terminal: `script` gives the child a pseudo-terminal and
// forwards the piped answers to it.
describe.skipIf(!Bun.which("script"))("relay init wizard", () => {
  async function wizard(home: string, answers: string[], extraEnv: Record<string, string> = {}) {
    const cmd = FROM_SOURCE.map((a) => `'${a}'`).join(" ") + " init";
    const proc = Bun.spawn(["script", "-qec", cmd, "/dev/null"], {
      cwd: REPO,
      env: childEnv(home, { TERM: "dumb", ...extraEnv }),
      stdin: new TextEncoder().encode(answers.map((a) => `${a}\n`).join("")),
      stdout: "pipe",
      stderr: "pipe",
      timeout: 20_000,
    });
    const [stdout, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
    return { stdout, code };
  }

  test("asks for each setting, re-asks after a bad answer, and writes the answers", async () => {
    const home = newHome();
    const r = await wizard(home, ["gpt-5-nano", "", "not-a-model", "gpt-5", "7", "", "4200", "n"], { OPENAI_API_KEY: "sk-wizard" });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Provider keys found in the environment: openai (OPENAI_API_KEY)");
    expect(r.stdout).toContain('unknown model "not-a-model"');
    const file = written(home);
    // Enter kept the suggestion for the openai key: gpt-5-mini.
    expect(file.routing.strategies.complexity.tiers).toEqual({ simple: "gpt-5-nano", moderate: "gpt-5-mini", complex: "gpt-5" });
    expect(file.limits).toEqual({ dailyUsd: 7, hourlyUsd: 0 });
    expect(file.server.port).toBe(4200);
    expect(JSON.stringify(file)).not.toContain("sk-wizard");
  });

  test("declining to overwrite an existing file writes nothing", async () => {
    const home = newHome();
    writeFileSync(join(home, "config.json"), "{}\n");
    const r = await wizard(home, ["n"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("Overwrite it?");
    expect(readFileSync(join(home, "config.json"), "utf8")).toBe("{}\n");
  });
});
