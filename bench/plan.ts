// Planning bench: CPU cost of routing one request, with no network. Builds the
// catalog, registry and config the way a running Relay does and calls the same
// planRoute() the request path calls, for a concrete model and for the virtual
// models, with the load bench's request. Prints µs per plan, the median and the best
// of a few rounds (the best is the steadier figure on a shared machine); asserts nothing.
// With --cold, each plan is timed alone after 4 MB of other memory has been touched: under load
// the request path runs with cold caches, and a loop understates that cost (the cue regex took
// 1.5 µs a scan in a loop and ~11 µs per request under load; twelfth pass in bench/HISTORY.md).
// Run: node_modules/.bin/bun bench/plan.ts [bench|default] [--cold]  (both configs when none is named)

import { median } from "./lib/median.ts";
import { BENCH_CONFIG } from "./lib/stack.ts";
import { loadConfig } from "../src/config/load.ts";
import { Catalog } from "../src/core/catalog/catalog.ts";
import { ControlState } from "../src/core/control.ts";
import { codecFor } from "../src/core/formats/index.ts";
import { CooldownTracker } from "../src/core/limits/cooldown.ts";
import { createLogger } from "../src/core/log.ts";
import type { RouterDeps } from "../src/core/router/deps.ts";
import { planRoute, type PlanInput } from "../src/core/router/plan.ts";
import { Registry } from "../src/plugin/registry.ts";
import { builtinProviders } from "../src/providers/index.ts";
import { builtinStrategies } from "../src/strategies/index.ts";

const MODELS = ["gpt-4o-mini", "svc:auto", "svc:cheap", "svc:fast"];
const WARM_MS = 300;
const ROUND_MS = 400;
const ROUNDS = 5;

const ENV = { OPENAI_API_KEY: "x", ANTHROPIC_API_KEY: "x" };

const BODY = {
  max_tokens: 256,
  messages: [
    { role: "system", content: "You are a concise assistant." },
    { role: "user", content: "Summarise the benefits of HTTP connection pooling in two sentences." },
  ],
};

/** The parts of a Relay that planRoute() reads; the guards and run writer play no part in planning. */
function routerDeps(configFile: object): RouterDeps {
  const config = loadConfig({ file: "bench-config.json", fileText: JSON.stringify(configFile), env: ENV }).config;
  const registry = new Registry();
  for (const p of builtinProviders) registry.register(p, "builtin");
  for (const s of builtinStrategies) registry.register(s, "builtin");
  const deps = {
    config: () => config,
    env: ENV,
    log: createLogger("error"),
    registry,
    catalog: new Catalog({ overrides: config.models }),
    cooldown: new CooldownTracker(),
    control: new ControlState(),
  };
  return deps as unknown as RouterDeps;
}

function planInput(model: string): PlanInput {
  const request = codecFor("openai").decodeRequest({ ...BODY, model });
  return { request, requestedModel: model, clientFormat: "openai", headers: new Headers(), anthropicOnly: false, clientAnthropicKey: false };
}

/** Plans back to back for about `ms`; returns µs per plan. */
async function timed(deps: RouterDeps, input: PlanInput, ms: number): Promise<number> {
  let n = 0;
  const start = Bun.nanoseconds();
  const end = start + ms * 1e6;
  let now = start;
  while (now < end) {
    for (let i = 0; i < 100; i++) await planRoute(deps, input);
    n += 100;
    now = Bun.nanoseconds();
  }
  return (now - start) / 1_000 / n;
}

const COLD = process.argv.includes("--cold");
const COLD_PLANS = 2_000;
/** Larger than the machine's last-level cache share: touching it evicts the request path's code and data. */
const junk = new Float64Array((4 * 1024 * 1024) / 8);
function evictCaches(): void {
  for (let i = 0; i < junk.length; i += 8) junk[i]! += 1; // one write per 64-byte line
}

/** µs per plan, each timed alone after the caches were evicted. */
async function timedCold(deps: RouterDeps, input: PlanInput): Promise<number> {
  let total = 0;
  for (let i = 0; i < COLD_PLANS; i++) {
    evictCaches();
    const start = Bun.nanoseconds();
    await planRoute(deps, input);
    total += Bun.nanoseconds() - start;
  }
  return total / 1_000 / COLD_PLANS;
}

const us = (n: number): string => n.toFixed(2).padStart(7);

async function report(label: string, configFile: object): Promise<void> {
  const deps = routerDeps(configFile);
  const how = COLD ? `each plan after 4 MB of other memory was touched, ${COLD_PLANS} plans a round` : "plans back to back";
  console.log(`${label}: ${deps.catalog.list().length} catalog models, ${deps.catalog.routableModels().length} routable; ${how}; median of ${ROUNDS} rounds`);
  for (const model of MODELS) {
    const input = planInput(model);
    const first = await planRoute(deps, input);
    await timed(deps, input, WARM_MS);
    const rounds: number[] = [];
    for (let r = 0; r < ROUNDS; r++) rounds.push(COLD ? await timedCold(deps, input) : await timed(deps, input, ROUND_MS));
    const picked = `${first.candidates.length} candidates, first ${first.candidates[0].provider}:${first.candidates[0].id}`;
    console.log(`  ${model.padEnd(12)} ${us(median(rounds))} µs per plan, best ${us(Math.min(...rounds))}  (${picked})`);
  }
}

const CONFIGS: Record<string, { label: string; file: object }> = {
  bench: { label: "bench config (complexity tiers all gpt-4o-mini)", file: BENCH_CONFIG },
  default: { label: "default config (default tiers)", file: {} },
};

// Each config in a process of its own: JIT state left by one would skew the next one's figures.
const only = process.argv.slice(2).find((a) => !a.startsWith("--"));
if (only) {
  const config = CONFIGS[only];
  if (!config) throw new Error(`unknown config ${only}; one of ${Object.keys(CONFIGS).join(", ")}`);
  await report(config.label, config.file);
} else {
  const flags = COLD ? ["--cold"] : [];
  for (const name of Object.keys(CONFIGS)) Bun.spawnSync([process.execPath, import.meta.path, name, ...flags], { stdout: "inherit", stderr: "inherit" });
}
