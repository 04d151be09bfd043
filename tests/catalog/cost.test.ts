import { describe, expect, test } from "bun:test";
import { Catalog } from "../../src/core/catalog/catalog.ts";
import { costOf } from "../../src/core/catalog/cost.ts";
import type { ModelInfo, Usage } from "../../src/plugin/api.ts";

const catalog = new Catalog();
const model = (name: string): ModelInfo => {
  const m = catalog.resolve(name);
  if (!m) throw new Error(`${name} did not resolve`);
  return m;
};
const usage = (u: Partial<Usage>): Usage => ({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, ...u });

describe("costOf", () => {
  test("anthropic with cache: uncached input, cache read and write are priced separately", () => {
    // $3 input, $15 output, $0.30 cache read, $3.75 cache write per million:
    // 1,000×3 + 2,000×0.30 + 500×3.75 + 300×15 = 9,975 micro-dollars.
    const u = usage({ inputTokens: 1_000, cacheReadTokens: 2_000, cacheWriteTokens: 500, outputTokens: 300 });
    expect(costOf(model("claude-sonnet-4-5"), u)).toBeCloseTo(0.009975, 12);
    expect(costOf(model("claude-sonnet-4-5-20250929"), u)).toBeCloseTo(0.009975, 12);
  });

  test("openai cached input: 1,000 uncached + 3,000 cached at half price", () => {
    // gpt-4o: $2.50 input, $1.25 cached, $10 output → 2,500 + 3,750 + 5,000 micro-dollars.
    const u = usage({ inputTokens: 1_000, cacheReadTokens: 3_000, outputTokens: 500 });
    expect(costOf(model("gpt-4o"), u)).toBeCloseTo(0.01125, 12);
  });

  test("gemini flat and tiered prices", () => {
    // gemini-2.5-flash: $0.30 / $2.50.
    expect(costOf(model("gemini-flash"), usage({ inputTokens: 10_000, outputTokens: 2_000 }))).toBeCloseTo(0.008, 12);
    // gemini-2.5-pro above 200k prompt tokens: $2.50 input, $15 output (base $1.25 / $10).
    expect(costOf(model("gemini-pro"), usage({ inputTokens: 250_000, outputTokens: 1_000 }))).toBeCloseTo(0.64, 10);
    expect(costOf(model("gemini-pro"), usage({ inputTokens: 100_000, outputTokens: 1_000 }))).toBeCloseTo(0.135, 10);
  });

  test("the tier is chosen by the whole prompt, cached tokens included", () => {
    // claude-sonnet-4-5 doubles its rates above 200k prompt tokens; 150k uncached + 100k cache read crosses it.
    const u = usage({ inputTokens: 150_000, cacheReadTokens: 100_000 });
    expect(costOf(model("claude-sonnet-4-5"), u)).toBeCloseTo((150_000 * 6 + 100_000 * 0.6) / 1e6, 10);
  });

  test("an override price wins, cache tokens falling back to the input price", () => {
    const c = new Catalog({ overrides: [{ provider: "openai", id: "gpt-4o", price: { input: 1, output: 2 } }] });
    const m = c.resolve("gpt-4o")!;
    expect(costOf(m, usage({ inputTokens: 1_000_000, outputTokens: 1_000_000 }))).toBeCloseTo(3, 10);
    expect(costOf(m, usage({ cacheReadTokens: 1_000_000 }))).toBeCloseTo(1, 10);
    expect(costOf(c.resolve("gpt-4o-2024-08-06")!, usage({ outputTokens: 1_000_000 }))).toBeCloseTo(2, 10);
  });

  test("a model with its own price that genai-prices does not know uses the per-million figures", () => {
    const c = new Catalog({
      overrides: [{ provider: "ollama", id: "tuned", price: { input: 0.5, output: 1, cacheRead: 0.1 } }],
    });
    const u = usage({ inputTokens: 2_000_000, outputTokens: 1_000_000, cacheReadTokens: 1_000_000 });
    expect(costOf(c.resolve("tuned")!, u)).toBeCloseTo(2.1, 10);
  });

  test("a local ollama model costs nothing", () => {
    expect(costOf(model("ollama:llama3.2"), usage({ inputTokens: 5_000, outputTokens: 5_000 }))).toBe(0);
  });

  test("costOf agrees with the listed per-million price in the base tier", () => {
    // DeepSeek's price depends on the time of day; it could change between catalog build and costOf.
    for (const m of catalog.routableModels().filter((m) => m.provider !== "deepseek")) {
      const p = m.price!;
      const u = usage({ inputTokens: 10_000, outputTokens: 1_000 });
      expect(costOf(m, u), m.id).toBeCloseTo((10_000 * p.input + 1_000 * p.output) / 1e6, 10);
    }
  });

  test("nonsense usage counts do not throw", () => {
    expect(costOf(model("sonnet"), usage({ inputTokens: -5, outputTokens: Number.NaN }))).toBe(0);
  });
});

describe("the flat-price fast path", () => {
  test("agrees with genai-prices' own calculation for every catalogued model", async () => {
    const { calcPrice } = await import("@pydantic/genai-prices");
    const { Catalog } = await import("../../src/core/catalog/catalog.ts");
    const usage = { inputTokens: 1234, outputTokens: 567, cacheReadTokens: 890, cacheWriteTokens: 12 };
    let compared = 0;
    for (const m of new Catalog().list()) {
      const expected = calcPrice(
        { input_tokens: 1234 + 890 + 12, cache_read_tokens: 890, cache_write_tokens: 12, output_tokens: 567 },
        m.id,
        { providerId: m.provider === "xai" ? "x-ai" : m.provider },
      );
      if (!expected) continue;
      expect(costOf(m, usage)).toBeCloseTo(expected.total_price, 12);
      compared++;
    }
    expect(compared).toBeGreaterThan(50);
  });
});
