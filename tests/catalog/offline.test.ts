import { expect, spyOn, test } from "bun:test";

// Modules are imported only after fetch is watched, so loading the bundled
// price data is covered too.
test("building the catalog and pricing usage never touches the network", async () => {
  const fetchSpy = spyOn(globalThis, "fetch").mockImplementation((() =>
    Promise.reject(new Error("network is off in this test"))) as unknown as typeof fetch);
  try {
    const { Catalog } = await import("../../src/core/catalog/catalog.ts");
    const { costOf } = await import("../../src/core/catalog/cost.ts");
    const catalog = new Catalog({ overrides: [{ provider: "openai", id: "gpt-4o", price: { input: 1, output: 1 } }] });
    const usage = { inputTokens: 1_000, outputTokens: 100, cacheReadTokens: 10, cacheWriteTokens: 10 };
    let total = 0;
    for (const name of ["sonnet", "gpt-4o", "gemini-pro", "openrouter:meta-llama/llama-3.1-8b-instruct", "ollama:llama3.2"]) {
      total += costOf(catalog.resolve(name)!, usage);
    }
    for (const m of catalog.routableModels()) total += costOf(m, usage);
    expect(total).toBeGreaterThan(0);
    expect(fetchSpy).not.toHaveBeenCalled();
  } finally {
    fetchSpy.mockRestore();
  }
});
