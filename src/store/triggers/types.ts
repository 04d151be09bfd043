// Webhook triggers of deployed workflows (issue 39 item 4, spec §2.10, §4.4): a team's trigger paths,
// each naming the workflow it starts and its options, and the deliveries a signed trigger has seen
// lately, which refuse a replay on every instance sharing the database.

/** A trigger's options as stored (src/core/workflows/cloud/trigger-config.ts checks them). */
export interface TriggerConfig {
  method: "POST" | "PUT";
  /** Headers a call must carry with these values; names in lower case. */
  headers: Record<string, string>;
  /** The signing secret, sealed under the master key; null: anyone may trigger. */
  secret: string | null;
  /** Lower-case header of the `t=…,v1=…` signature; null: the Standard Webhooks headers. */
  signatureHeader: string | null;
  /** `window` as deployed: a whole number and a unit, `30s`, `1m`, `2h`, `1d`. */
  rateLimit: { requests: number; window: string } | null;
}

export interface WorkflowTrigger {
  team_id: string;
  /** The endpoint path, without leading or trailing slashes (`orders/new`). */
  path: string;
  workflow_name: string;
  config: TriggerConfig;
  /** ms since the epoch. */
  created_at: number;
}

export interface TriggerStore {
  /** Makes the workflow's trigger this one: its other paths go, and the path is taken over from whichever workflow held it. */
  put(trigger: WorkflowTrigger): Promise<void>;
  /** Removes the workflow's trigger (deployed without one). */
  removeFor(teamId: string, workflowName: string): Promise<void>;
  get(teamId: string, path: string): Promise<WorkflowTrigger | undefined>;
  /** The workflow's trigger, if it has one. */
  forWorkflow(teamId: string, workflowName: string): Promise<WorkflowTrigger | undefined>;
  /**
   * Records a delivery (its id or signature) until `expiresAt`; false when it was recorded already and
   * has not expired: a replay. Expired records are dropped on the way.
   */
  remember(teamId: string, path: string, delivery: string, now: number, expiresAt: number): Promise<boolean>;
}
