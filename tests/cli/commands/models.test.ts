// `relay models`: the catalog with the config's overrides, as a table or JSON.
import { afterAll, describe, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Catalog } from "../../../src/core/catalog/catalog.ts";
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
const models = (...args: string[]) => run([...FROM_SOURCE, "models", ...args], { env: childEnv(home) });

describe("relay models", () => {
  test("--json lists exactly the routable models, with the config's overrides applied", async () => {
    const r = await models("--json");
    expect(r.code).toBe(0);
    const list = JSON.parse(r.stdout) as Array<{ id: string; provider: string; routable: boolean; price?: { input: number } }>;
    expect(list.every((m) => m.routable)).toBe(true);
    const ids = list.map((m) => `${m.provider}:${m.id}`);
    expect(ids).toContain("ollama:llama3.2");
    expect(ids).not.toContain("anthropic:claude-opus-4-5");
    expect(list.find((m) => m.id === "claude-haiku-4-5")?.price?.input).toBe(1);
    const expected = new Catalog({ overrides: [{ id: "llama3.2", provider: "ollama", routable: true }, { id: "claude-opus-4-5", provider: "anthropic", routable: false }] }).routableModels();
    expect(list).toHaveLength(expected.length);
  });

  test("--all adds the models that are not routed to", async () => {
    const all = JSON.parse((await models("--all", "--json")).stdout) as Array<{ id: string; routable: boolean }>;
    const routable = JSON.parse((await models("--json")).stdout) as unknown[];
    expect(all.length).toBeGreaterThan(routable.length);
    expect(all.find((m) => m.id === "claude-opus-4-5")?.routable).toBe(false);
  });

  test("the table shows prices per million tokens and the context window", async () => {
    const r = await models();
    expect(r.code).toBe(0);
    const lines = r.stdout.split("\n");
    expect(lines[0]).toMatch(/^MODEL\s+PROVIDER\s+TIER\s+INPUT \$\/M\s+OUTPUT \$\/M\s+CONTEXT\s+ALIASES$/);
    expect(lines.find((l) => l.startsWith("claude-haiku-4-5 "))).toMatch(/anthropic\s+simple\s+1\s+5\s+200,000\s+haiku, claude-haiku/);
    expect(lines.find((l) => l.startsWith("llama3.2 "))).toMatch(/ollama\s+simple\s+0\s+0\s+131,072/);
    expect(r.stdout).not.toContain("\x1b[");
  });

  test("--all adds a ROUTABLE column", async () => {
    const r = await models("--all");
    expect(r.stdout.split("\n")[0]).toContain("ROUTABLE");
    expect(r.stdout.split("\n").find((l) => l.startsWith("claude-opus-4-5 "))).toMatch(/\sno\s/);
  });

  test("an unknown flag exits 2", async () => {
    const r = await models("--cheap");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--cheap");
  });
});
