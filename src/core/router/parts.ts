// The long-lived parts route() runs on (deps.ts) besides the config, the plugins and the catalog,
// built one way for every host: the server's Relay (src/relay.ts) over its store, and createRouter
// (src/portable.ts) over memory and a callback.
import type { Config } from "../../config/schema.ts";
import type { BudgetSpend } from "../../store/budgets/types.ts";
import { ControlState } from "../control.ts";
import { MemoryBudgetGuard } from "../limits/budget-memory.ts";
import type { Clock } from "../limits/clock.ts";
import { CooldownTracker } from "../limits/cooldown.ts";
import { HealthBoard, type HealthFeed } from "../limits/health.ts";
import { MemoryRateLimiter } from "../limits/rate-limit.ts";
import type { Logger } from "../log.ts";
import { RunWriter, type RunSink } from "../telemetry/writer.ts";
import { LoopGuard } from "./loop-guard.ts";

export interface PartsOptions {
  config: Config;
  log: Logger;
  /** Where budget spend is kept between saves: the store's counters, or memory. */
  spend: BudgetSpend;
  /** Where run records go: the store's run log, or a callback. */
  runs: RunSink;
  /** This install's id, which marks its vendor calls (loop-guard.ts). */
  installId: string;
  clock: Clock;
  /** Health sources besides the local cooldown tracker (the mesh's board). */
  healthFeeds?: HealthFeed[];
}

export interface RouterParts {
  control: ControlState;
  rate: MemoryRateLimiter;
  cooldown: CooldownTracker;
  health: HealthBoard;
  budget: MemoryBudgetGuard;
  writer: RunWriter;
  loop: LoopGuard;
}

export function routerParts(opts: PartsOptions): RouterParts {
  const { config: c, log, clock } = opts;
  const control = new ControlState();
  control.routingEnabled = c.routing.enabled;
  const cooldown = new CooldownTracker(cooldownOptions(c), clock);
  return {
    control,
    rate: new MemoryRateLimiter(clock),
    cooldown,
    health: new HealthBoard([cooldown, ...(opts.healthFeeds ?? [])]),
    budget: new MemoryBudgetGuard({ spend: opts.spend, limits: budgetLimits(c), clock }),
    writer: new RunWriter(opts.runs, { maxWaitMs: c.telemetry.durableWaitMs, onError: (e) => log.error("run log write failed", { error: e }) }),
    loop: new LoopGuard(opts.installId),
  };
}

/** A new configuration, applied to the running parts. */
export function reconfigureParts(parts: RouterParts, c: Config): void {
  parts.cooldown.setOptions(cooldownOptions(c));
  parts.budget.setLimits(budgetLimits(c));
  parts.writer.maxWaitMs = c.telemetry.durableWaitMs;
}

/** Writes out what the run log and the budgets still hold; a failure is logged, not thrown. */
export async function closeParts(parts: RouterParts, log: Logger): Promise<void> {
  await parts.writer.close().catch((e) => log.error("run log flush failed", { error: e }));
  await parts.budget.flush().catch((e) => log.error("saving budget spend failed", { error: e }));
}

const cooldownOptions = (c: Config) => ({
  failureThreshold: c.cooldown.failures,
  windowMs: c.cooldown.windowSec * 1000,
  cooldownMs: c.cooldown.durationSec * 1000,
});

const budgetLimits = (c: Config) => ({
  hourlyUsd: c.limits.hourlyUsd > 0 ? c.limits.hourlyUsd : undefined,
  dailyUsd: c.limits.dailyUsd > 0 ? c.limits.dailyUsd : undefined,
});
