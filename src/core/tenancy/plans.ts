// The hosted plans (spec §8): one table of what each plan allows. Everything that differs by plan
// reads it from here: the hosted API's rate limit (src/surfaces/cloud/auth.ts), and later the log
// retention job, exports, the log API and webhooks.

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
}

export const PLANS: Readonly<Record<PlanName, Readonly<Plan>>> = {
  free: { requestsPerMinute: 60, logRetentionDays: 7, export: false, logApi: false, webhooks: false },
  maker: { requestsPerMinute: 600, logRetentionDays: 30, export: true, logApi: false, webhooks: false },
  pro: { requestsPerMinute: 3000, logRetentionDays: 90, export: true, logApi: true, webhooks: true },
};

export const isPlanName = (v: unknown): v is PlanName => typeof v === "string" && (PLAN_NAMES as readonly string[]).includes(v);
