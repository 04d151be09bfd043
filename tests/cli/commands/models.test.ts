// `relay models`: the virtual models and the catalog with the config's overrides, as a table or JSON;
// by default only the models of providers with a key (or needing none).
import { afterAll, describe, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Catalog } from "../../../src/core/catalog/catalog.ts";
import { builtinProviders } from "../../../src/providers/index.ts";
import { FROM_SOURCE, childEnv, run, tempDir } from "../relay-process.ts";

const home = tempDir("models");
afterAll(() => rmSync(home, { recursive: true, force: true }));
writeFileSync(
  join(home, "config.json"),
  JSON.stringify({
    models: [
      { id: "llama3.2", provider: "ollama", routable: true, tier: "simple", price: { input: 0, output: 0 }, contextWindow: 131072 },
      { id: "claude-opus-4-5", provider: "anthropic", routable: false },
    ],
  }),
);
/** A key for every built-in provider that needs one: every model is listed. */
const ALL_KEYS = Object.fromEntries(builtinProviders.flatMap((p) => (p.apiKeyEnv?.length ? [[p.apiKeyEnv[0]!, "sk-test"]] : [])));
const models = (...args: string[]) => run([...FROM_SOURCE, "models", ...args], { env: childEnv(home, ALL_KEYS) });
const modelsWith = (keys: Record<string, string>, ...args: string[]) => run([...FROM_SOURCE, "models", ...args], { env: childEnv(home, keys) });
type Listed = Array<{ id: string; provider: string; routable: boolean }>;

describe("relay models", () => {
  test("--json lists every model of a keyed provider (every provider keyed here), the price data's newest included, with the config's overrides applied", async () => {
    const r = await models("--json");
    expect(r.code).toBe(0);
    const list = JSON.parse(r.stdout) as Array<{ id: string; provider: string; routable: boolean; price?: { input: number } }>;
    const ids = list.map((m) => `${m.provider}:${m.id}`);
    expect(ids).toEqual(expect.arrayContaining(["ollama:llama3.2", "anthropic:claude-opus-5-5", "openai:gpt-5.5", "google:gemini-3.5-flash"]));
    expect(list.find((m) => m.id === "llama3.2")?.routable).toBe(true);
    expect(list.find((m) => m.id === "claude-opus-4-5")?.routable).toBe(false);
    expect(list.find((m) => m.id === "claude-haiku-4-5")?.price?.input).toBe(1);
    const expected = new Catalog({ overrides: [{ id: "llama3.2", provider: "ollama", routable: true }, { id: "claude-opus-4-5", provider: "anthropic", routable: false }] }).list();
    expect(list).toHaveLength(expected.length);
  });

  test("--all adds the providers without a key", async () => {
    const keyed = JSON.parse((await modelsWith({ OPENAI_API_KEY: "sk-test" }, "--json")).stdout) as Listed;
    const all = JSON.parse((await modelsWith({ OPENAI_API_KEY: "sk-test" }, "--all", "--json")).stdout) as Listed;
    expect(all.length).toBeGreaterThan(keyed.length);
    expect(keyed.some((m) => m.provider === "anthropic")).toBe(false);
    expect(all.some((m) => m.provider === "anthropic")).toBe(true);
  });

  test("the table shows prices per million tokens and the context window", async () => {
    const r = await models();
    expect(r.code).toBe(0);
    const lines = r.stdout.split("\n");
    const header = lines.findIndex((l) => l.startsWith("MODEL "));
    expect(lines[header]).toMatch(/^MODEL\s+PROVIDER\s+TIER\s+INPUT \$\/M\s+OUTPUT \$\/M\s+CONTEXT\s+ALIASES$/);
    expect(lines.find((l) => l.startsWith("claude-haiku-4-5 "))).toMatch(/anthropic\s+simple\s+1\s+5\s+200,000\s+haiku, claude-haiku/);
    expect(lines.find((l) => l.startsWith("llama3.2 "))).toMatch(/ollama\s+simple\s+0\s+0\s+131,072/);
    expect(r.stdout).not.toContain("\x1b[");
  });

  test("--all adds a ROUTABLE column", async () => {
    const r = await models("--all");
    expect(r.stdout.split("\n").find((l) => l.startsWith("MODEL "))).toContain("ROUTABLE");
    expect(r.stdout.split("\n").find((l) => l.startsWith("claude-opus-4-5 "))).toMatch(/\sno\s/);
  });

  test("the virtual models come first, each with its own description", async () => {
    const lines = (await models()).stdout.split("\n");
    expect(lines[0]).toMatch(/^VIRTUAL MODEL\s+STRATEGY\s+DESCRIPTION$/);
    const row = (name: string) => lines.find((l) => l.startsWith(`${name} `));
    for (const name of ["svc:auto", "svc:fast", "svc:cheap", "svc:best", "svc:cascade"]) expect(row(name)).toBeDefined();
    expect(row("svc:auto")).toMatch(/complexity\s+Scores each request/);
    expect(row("svc:cheap")).toMatch(/complexity\s+The cheapest available model/);
    expect(row("svc:cascade")).toMatch(/cascade\s+Tries a chain cheapest first/);
    const descriptions = ["svc:auto", "svc:fast", "svc:cheap", "svc:best"].map((n) => row(n)!.replace(/^\S+\s+\S+\s+/, ""));
    expect(new Set(descriptions).size).toBe(4);
    expect(lines.findIndex((l) => l.startsWith("svc:auto "))).toBeLessThan(lines.findIndex((l) => l.startsWith("MODEL ")));
  });

  test("only OPENAI_API_KEY: OpenAI's models and keyless Ollama's, nothing of providers without a key", async () => {
    const list = JSON.parse((await modelsWith({ OPENAI_API_KEY: "sk-test" }, "--json")).stdout) as Listed;
    expect(new Set(list.map((m) => m.provider))).toEqual(new Set(["openai", "ollama"]));
    expect(list.map((m) => m.id)).toEqual(expect.arrayContaining(["gpt-5-nano", "gpt-5-mini", "gpt-5", "llama3.2"]));
    const table = (await modelsWith({ OPENAI_API_KEY: "sk-test" })).stdout;
    expect(table).toContain("with a key; --all adds the providers without one");
    expect(table).not.toContain("claude-haiku-4-5");
  });

  test("a key in the config file counts; a provider disabled in config does not", async () => {
    const file = join(home, "keyed.json");
    writeFileSync(file, JSON.stringify({ providers: { anthropic: { apiKey: "sk-ant-file" }, openai: { enabled: false } } }));
    const list = JSON.parse((await modelsWith({ OPENAI_API_KEY: "sk-test" }, "--json", "--config", file)).stdout) as Listed;
    expect(new Set(list.map((m) => m.provider))).toEqual(new Set(["anthropic"]));
  });

  test("--all lists the models of providers without a key, with a KEY column", async () => {
    const all = JSON.parse((await modelsWith({ OPENAI_API_KEY: "sk-test" }, "--all", "--json")).stdout) as Listed;
    expect(all.find((m) => m.id === "claude-sonnet-4-5")?.routable).toBe(true);
    const lines = (await modelsWith({ OPENAI_API_KEY: "sk-test" }, "--all")).stdout.split("\n");
    expect(lines.find((l) => l.startsWith("MODEL "))).toMatch(/ROUTABLE\s+KEY\s+ALIASES$/);
    expect(lines.find((l) => l.startsWith("claude-sonnet-4-5 "))).toMatch(/\syes\s+no\s/);
    expect(lines.find((l) => l.startsWith("gpt-5-mini "))).toMatch(/\syes\s+yes(\s|$)/);
  });

  test("an unknown flag exits 2", async () => {
    const r = await models("--cheap");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--cheap");
  });
});
