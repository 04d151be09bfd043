// Routing bench: how well the complexity scorer's tiers match hand labels, how
// fast it scores, and what a week of this traffic would cost per tier mapping
// compared with sending everything to the mapping's strongest model.
// Run: node_modules/.bin/bun bench/routing/run.ts

import { calcPrice } from "@pydantic/genai-prices";
import { scoreRequest, type ChatRequest, type Tier } from "../../src/index.ts";
import { loadDataset, type LabelledPrompt } from "./dataset.ts";

const TIERS: Tier[] = ["simple", "moderate", "complex"];
const REQUESTS_PER_WEEK = 10_000 * 7;
const TIMING_ROUNDS = 200;

/** Typical answer length per category, in output tokens. */
const OUTPUT_TOKENS: Record<string, number> = {
  chat: 120,
  extraction: 200,
  summarisation: 300,
  classification: 40,
  translation: 250,
  coding: 900,
  math: 600,
  reasoning: 700,
  agentic: 400,
  writing: 1_000,
};

const MAPPINGS: Array<{ provider: string; models: Record<Tier, string> }> = [
  { provider: "anthropic", models: { simple: "claude-haiku-4-5", moderate: "claude-sonnet-4-5", complex: "claude-opus-4-5" } },
  { provider: "openai", models: { simple: "gpt-5-nano", moderate: "gpt-5-mini", complex: "gpt-5" } },
  { provider: "google", models: { simple: "gemini-2.5-flash-lite", moderate: "gemini-2.5-flash", complex: "gemini-2.5-pro" } },
];

/** Input tokens ≈ serialized prompt chars / 4; prompt caching is ignored. */
const inputTokens = (req: ChatRequest): number =>
  Math.ceil(JSON.stringify([req.system ?? [], req.tools ?? [], req.messages]).length / 4);

function requestCost(provider: string, model: string, input: number, output: number): number {
  const price = calcPrice({ input_tokens: input, output_tokens: output }, model, { providerId: provider });
  if (!price) throw new Error(`no price for ${provider}/${model}`);
  return price.total_price;
}

function meanScoringMicros(rows: LabelledPrompt[]): number {
  for (const row of rows) scoreRequest(row.request); // warm up the JIT
  const start = Bun.nanoseconds();
  for (let r = 0; r < TIMING_ROUNDS; r++) for (const row of rows) scoreRequest(row.request);
  return (Bun.nanoseconds() - start) / 1_000 / (TIMING_ROUNDS * rows.length);
}

const pct = (n: number, d: number): string => (d ? `${((100 * n) / d).toFixed(1)}%` : "-");
const usd = (n: number): string => `$${n.toLocaleString("en-US", { maximumFractionDigits: 0 })}`;
const pad = (s: string | number, w: number): string => String(s).padStart(w);

const rows = loadDataset();
const predicted = rows.map((row) => scoreRequest(row.request).tier);

const confusion = new Map<string, number>();
for (let i = 0; i < rows.length; i++) {
  const key = `${rows[i].tier}>${predicted[i]}`;
  confusion.set(key, (confusion.get(key) ?? 0) + 1);
}
const cell = (label: Tier, pred: Tier): number => confusion.get(`${label}>${pred}`) ?? 0;

console.log(`routing bench: ${rows.length} labelled prompts\n`);
console.log(`label \\ predicted ${TIERS.map((t) => pad(t, 9)).join("")}   accuracy`);
let correct = 0;
for (const label of TIERS) {
  const total = TIERS.reduce((s, p) => s + cell(label, p), 0);
  correct += cell(label, label);
  console.log(`${label.padEnd(17)} ${TIERS.map((p) => pad(cell(label, p), 9)).join("")}   ${pad(pct(cell(label, label), total), 8)}`);
}
console.log(`overall accuracy: ${pct(correct, rows.length)}`);
console.log(`mean scoring time: ${meanScoringMicros(rows).toFixed(1)} µs per request\n`);

const weight = REQUESTS_PER_WEEK / rows.length;
console.log(`weekly cost at ${REQUESTS_PER_WEEK.toLocaleString("en-US")} requests (dataset mix, no prompt caching):`);
console.log(`${"mapping".padEnd(10)}${pad("routed", 12)}${pad("by label", 12)}${pad("all strongest", 15)}${pad("saving", 9)}`);
for (const { provider, models } of MAPPINGS) {
  let routed = 0;
  let labelled = 0;
  let strongest = 0;
  rows.forEach((row, i) => {
    const input = inputTokens(row.request);
    const output = OUTPUT_TOKENS[row.category] ?? 500;
    routed += requestCost(provider, models[predicted[i]], input, output) * weight;
    labelled += requestCost(provider, models[row.tier], input, output) * weight;
    strongest += requestCost(provider, models.complex, input, output) * weight;
  });
  console.log(
    `${provider.padEnd(10)}${pad(usd(routed), 12)}${pad(usd(labelled), 12)}${pad(usd(strongest), 15)}${pad(pct(strongest - routed, strongest), 9)}`,
  );
}
