// The hosted plans (spec §8): one table of what each plan allows. Everything that differs by plan
// reads it from here: the hosted API's rate limit (src/surfaces/cloud/auth.ts), and later the log
// retention job, exports, the log API and webhooks.
import { CoreError } from "../errors.ts";

export const PLAN_NAMES = ["free", "maker", "pro"] as const;
export type PlanName = (typeof PLAN_NAMES)[number];

export interface Plan {
  /** Requests per minute to the guarded hosted routes, counted per team over a sliding minute. */
  requestsPerMinute: number;
  /** Days request logs are kept. */
  logRetentionDays: number;
  /** CSV and JSON export of the request log. */
  export: boolean;
  /** The log API (`GET /api/logs`, `GET /api/usage`). */
  logApi: boolean;
  /** Outbound webhooks. */
  webhooks: boolean;
  /** The highest spend cap, in USD, one benchmark run may set (src/core/benchmarks/). */
  benchmarkMaxSpendUsd: number;
}

export const PLANS: Readonly<Record<PlanName, Readonly<Plan>>> = {
  free: { requestsPerMinute: 60, logRetentionDays: 7, export: false, logApi: false, webhooks: false, benchmarkMaxSpendUsd: 1 },
  maker: { requestsPerMinute: 600, logRetentionDays: 30, export: true, logApi: false, webhooks: false, benchmarkMaxSpendUsd: 10 },
  pro: { requestsPerMinute: 3000, logRetentionDays: 90, export: true, logApi: true, webhooks: true, benchmarkMaxSpendUsd: 100 },
};

export const isPlanName = (v: unknown): v is PlanName => typeof v === "string" && (PLAN_NAMES as readonly string[]).includes(v);

/** A plan's yes-or-no features. */
export type PlanFeature = "export" | "logApi" | "webhooks";

/** The plans that include `feature`, cheapest first. */
export const plansWith = (feature: PlanFeature): PlanName[] => PLAN_NAMES.filter((p) => PLANS[p][feature]);

/** 403 plan_upgrade_required, naming the plans that include it, unless `plan` has `feature` (`what`: the feature in a sentence). */
export function requirePlan(plan: PlanName, feature: PlanFeature, what: string): void {
  if (PLANS[plan][feature]) return;
  const plans = plansWith(feature);
  throw new CoreError(403, "plan_upgrade_required", `${what} needs the ${plans.join(" or ")} plan; this team is on ${plan}`);
}
