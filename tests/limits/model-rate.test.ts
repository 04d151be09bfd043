// Rate limits key on the canonical model: every name of one catalog entry
// counts under one key and gets the limit configured under any of its names.
import { describe, expect, test } from "bun:test";
import { Catalog } from "../../src/core/catalog/catalog.ts";
import { ModelRateLimits, modelRateLimits } from "../../src/core/limits/model-rate.ts";

const catalog = new Catalog();
const limits = (rpm: Record<string, number>, rpmDefault = 0) => new ModelRateLimits({ rpm, rpmDefault }, catalog);
const of = (table: ModelRateLimits, name: string) => table.of(catalog.resolve(name)!);

describe("ModelRateLimits", () => {
  test("a dated id, an alias and a qualified name share the canonical model's key and limit", () => {
    const table = limits({ "gpt-4o-mini": 2 });
    const names = ["gpt-4o-mini", "gpt-4o-mini-2024-07-18", "4o-mini", "openai:gpt-4o-mini", "openai/gpt-4o-mini-2024-07-18"];
    for (const name of names) expect({ name, ...of(table, name) }).toEqual({ name, key: "model:openai:gpt-4o-mini", limit: 2 });
    // The dated snapshot still goes to the vendor under its own id.
    expect(catalog.resolve("gpt-4o-mini-2024-07-18")!.id).toBe("gpt-4o-mini-2024-07-18");
  });

  test("a limit written under a dated id or an alias applies to the canonical model", () => {
    expect(of(limits({ "gpt-4o-mini-2024-07-18": 3 }), "gpt-4o-mini").limit).toBe(3);
    expect(of(limits({ "4o-mini": 4 }), "gpt-4o-mini-2024-07-18").limit).toBe(4);
  });

  test("two names of one model keep the stricter limit; 0 (unlimited) never wins over a limit", () => {
    expect(of(limits({ "gpt-4o-mini": 5, "4o-mini": 2 }), "gpt-4o-mini").limit).toBe(2);
    expect(of(limits({ "gpt-4o-mini": 0, "4o-mini": 7 }), "gpt-4o-mini").limit).toBe(7);
  });

  test("other models get rpmDefault; a name the catalog cannot resolve still limits that bare id", () => {
    const table = limits({ "gpt-4o-mini": 2, "my-finetune": 9 }, 30);
    expect(of(table, "gpt-4o").limit).toBe(30);
    expect(of(table, "ollama:my-finetune")).toEqual({ key: "model:ollama:my-finetune", limit: 9 });
    expect(of(table, "ollama:other")).toEqual({ key: "model:ollama:other", limit: 30 });
  });

  test("one table per catalog and limits object, rebuilt when either is replaced", () => {
    const source = { rpm: { "gpt-4o-mini": 2 }, rpmDefault: 0 };
    const first = modelRateLimits(catalog, source);
    expect(modelRateLimits(catalog, source)).toBe(first);
    expect(modelRateLimits(catalog, { ...source })).not.toBe(first);
    expect(modelRateLimits(new Catalog(), source)).not.toBe(first);
  });
});
