// Webhook triggers of deployed workflows (issue 39 item 4, spec §2.10, §4.4): deploying registers
// the workflow's trigger (or removes it, deployed without one), its secret sealed under the master key;
// a delivery to `{hooks_url}/<team>/<endpoint path>` is checked — the trigger exists (404), the
// team's Cloud features (403), then the call itself (trigger-verify.ts admitCall) — and queues a run
// with the body as its input, which the durable runner (runner.ts) takes in the background. The
// deliveries a signed trigger saw are remembered in the store, so instances sharing it agree on a replay.
import { CoreError } from "../../errors.ts";
import type { RateLimiter } from "../../limits/rate-limit.ts";
import type { Clock } from "../../limits/clock.ts";
import { masterKey } from "../../secrets/master-key.ts";
import type { TriggerStore, WorkflowTrigger } from "../../../store/triggers/types.ts";
import type { WorkflowRun, WorkflowStore } from "../../../store/workflows/types.ts";
import { enqueueRun, type RunQueue } from "./enqueue.ts";
import type { TriggerSpec } from "./trigger-config.ts";
import { admitCall, type HookCall } from "./trigger-verify.ts";
import { requireCloud } from "./enqueue.ts";

export interface TriggerDeps extends RunQueue {
  readonly env: Record<string, string | undefined>;
  readonly clock: Clock;
  readonly rate: RateLimiter;
  readonly store: { readonly triggers: TriggerStore; readonly workflows: WorkflowStore; readonly accounts: { cloudEnabled(teamId: string): Promise<boolean | undefined> } };
}

/** What a sealed trigger secret is bound to: its team and path. */
const boundTo = (teamId: string, path: string) => `workflow_triggers:${teamId}:${path}`;

/** Makes `spec` the workflow's trigger (none: the workflow has no trigger any more). */
export async function registerTrigger(deps: TriggerDeps, teamId: string, workflowName: string, spec: TriggerSpec | undefined): Promise<WorkflowTrigger | undefined> {
  if (!spec) return void (await deps.store.triggers.removeFor(teamId, workflowName));
  const secret = spec.config.secret === null ? null : await (await masterKey(deps.env)).seal(spec.config.secret, boundTo(teamId, spec.path));
  const trigger: WorkflowTrigger = { team_id: teamId, path: spec.path, workflow_name: workflowName, config: { ...spec.config, secret }, created_at: deps.clock.now() };
  await deps.store.triggers.put(trigger);
  return trigger;
}

/** Checks a call to the team's trigger `path` and queues its run; a CoreError names each refusal. */
export async function deliver(deps: TriggerDeps, teamId: string, path: string, call: HookCall): Promise<WorkflowRun> {
  const trigger = await deps.store.triggers.get(teamId, path);
  if (!trigger) throw new CoreError(404, "not_found", `no workflow trigger at /hooks/${teamId}/${path}`);
  await requireCloud(deps.store.accounts, teamId);
  const { config } = trigger;
  const secret = config.secret === null ? null : await (await masterKey(deps.env)).open(config.secret, boundTo(teamId, path));
  const input = await admitCall(config, secret, call, {
    rateKey: `hook:${teamId}:${path}`,
    now: deps.clock.now(),
    rate: deps.rate,
    remember: (d) => deps.store.triggers.remember(teamId, path, d.key, deps.clock.now(), d.expiresAt),
  });
  const workflow = await deps.store.workflows.latest(teamId, trigger.workflow_name);
  if (!workflow) throw new CoreError(404, "not_found", `no workflow named "${trigger.workflow_name}" is deployed in this team`);
  return (await enqueueRun(deps, teamId, workflow, input))!;
}

/** A trigger as the deploy answer shows it: where it answers, and its options but the secret and header values. */
export const triggerView = (t: WorkflowTrigger, hooksUrl: string) => ({
  endpoint: t.path,
  url: `${hooksUrl}/${t.team_id}/${t.path}`,
  method: t.config.method,
  headers: Object.keys(t.config.headers),
  signed: t.config.secret !== null,
  signatureHeader: t.config.signatureHeader,
  rateLimit: t.config.rateLimit,
});
