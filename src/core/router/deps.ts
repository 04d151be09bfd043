import type { Config } from "../../config/schema.ts";
import type { Registry } from "../../plugin/registry.ts";
import type { Catalog } from "../catalog/catalog.ts";
import type { ControlState } from "../control.ts";
import type { BudgetGuard } from "../limits/budget.ts";
import type { HealthView } from "../../plugin/api.ts";
import type { CooldownTracker } from "../limits/cooldown.ts";
import type { RateLimiter } from "../limits/rate-limit.ts";
import type { Logger } from "../log.ts";
import type { LoopGuard } from "./loop-guard.ts";
import type { RunWriter } from "../telemetry/writer.ts";
import type { ChatRequest } from "../ir.ts";
import type { RunRecord } from "../run-record.ts";

/** What the router needs from the running Relay; surfaces hand it in. */
export interface RouterDeps {
  config(): Config;
  env: Record<string, string | undefined>;
  log: Logger;
  registry: Registry;
  catalog: Catalog;
  rate: RateLimiter;
  budget: BudgetGuard;
  cooldown: CooldownTracker;
  /** What strategies see of model and provider health; the cooldown tracker is one of its sources. */
  health: HealthView;
  control: ControlState;
  writer: RunWriter;
  /** Marks vendor calls with this install's id and spots requests that come back (508). */
  loop: LoopGuard;
  /** Takes each settled run's anonymised outcomes for the mesh (src/core/mesh/outbox.ts); absent where there is no mesh. */
  mesh?: { tap(record: RunRecord, request: ChatRequest): void };
}
