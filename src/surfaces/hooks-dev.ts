// `relay hooks dev` (issue 39 item 8, spec §4.4 "a local test server accepts the same paths on a local
// port"): the workflows of a JSON file, each with its trigger, answering at /hooks/<team>/<endpoint>
// as the cloud does — any team segment, there are no teams here — and run in local mode: the run
// engine over the caller's router (createRouter, as the SDK's local mode), nothing stored. Calls are
// admitted by the cloud's own checks (trigger-verify.ts admitCall: method, headers, signature, rate
// limit, replays remembered in memory), after the listeners' browser guard, so a web page the developer
// visits cannot start runs on their provider keys (a server's call, without Origin, passes it with a
// JSON content type); a refusal is the hosted error object. Each call answers 202
// with its run's id at once and the run goes on; `onRun` hears when it starts and when it ends.
//
// The file: {"workflows": [{"name", "steps": […], "trigger": {"endpoint", "method"?, "headers"?,
// "secret"?, "signatureHeader"?, "rateLimit"?}}]} — the deploy body of POST /api/v1/workflows, one per
// workflow (docs/workflows.md "Triggers").
import { CoreError } from "../core/errors.ts";
import { prefixedId } from "../core/ids.ts";
import type { Clock } from "../core/limits/clock.ts";
import { MemoryRateLimiter } from "../core/limits/rate-limit.ts";
import { readCapped } from "../core/read-capped.ts";
import { array, object } from "../core/registry/fields.ts";
import { definitionOf } from "../core/workflows/cloud/deploy.ts";
import { type TriggerSpec, triggerOf } from "../core/workflows/cloud/trigger-config.ts";
import { admitCall } from "../core/workflows/cloud/trigger-verify.ts";
import { defineWorkflow, runWorkflow, type StepCaller, type Workflow, type WorkflowResult } from "../core/workflows/index.ts";
import { browserGuard, type ListenerAddress } from "./browser-guard.ts";
import { errorResponse, json } from "./http.ts";

const BODY_LIMIT = 1024 * 1024;
const MAX_WORKFLOWS = 100;

export interface DevHook {
  workflow: Workflow;
  trigger: TriggerSpec;
}

export type DevRunEvent =
  | { kind: "started"; runId: string; workflow: string; path: string; input: unknown }
  | { kind: "ended"; runId: string; workflow: string; result: WorkflowResult };

/** The file's workflows with their triggers; a CoreError (400) names the first field wrong, as deploying would. */
export function devHooks(file: unknown): DevHook[] {
  const hooks = array(object(file, "file").workflows, "workflows", MAX_WORKFLOWS).map((raw, i) => {
    const body = object(raw, `workflows[${i}]`);
    if (body.trigger === undefined) throw new CoreError(400, "invalid_request", `workflows[${i}].trigger is missing: a workflow here is served by its trigger`);
    return { workflow: defineWorkflow(definitionOf(body)), trigger: triggerOf(body.trigger) };
  });
  const paths = new Set<string>();
  for (const h of hooks) {
    if (paths.has(h.trigger.path)) throw new CoreError(400, "invalid_request", `two workflows' triggers have the endpoint ${h.trigger.path}`);
    paths.add(h.trigger.path);
  }
  return hooks;
}

/** The dev server's fetch handler. */
export function devHookServer(hooks: DevHook[], opts: { call: StepCaller; clock: Clock; onRun: (e: DevRunEvent) => void }) {
  const byPath = new Map(hooks.map((h) => [h.trigger.path, h]));
  const rate = new MemoryRateLimiter(opts.clock);
  const guard = browserGuard(() => ({ corsOrigins: [], allowedHosts: [] }), true);
  // Deliveries seen, until their timestamp leaves the tolerance: a replay is refused, as in the cloud.
  const seen = new Map<string, number>();
  const remember = (key: string, expiresAt: number) => {
    const now = opts.clock.now();
    for (const [k, until] of seen) if (until <= now) seen.delete(k);
    if (seen.has(key)) return false;
    seen.set(key, expiresAt);
    return true;
  };

  const admit = async (request: Request): Promise<Response> => {
    const match = /^\/hooks\/[^/]+\/(.+)$/.exec(new URL(request.url).pathname);
    const hook = match ? byPath.get(match[1]!.replace(/\/+$/, "")) : undefined;
    if (!hook) throw new CoreError(404, "not_found", "no workflow trigger at this path; the file's triggers are listed when the server starts");
    const { path, config } = hook.trigger;
    const body = await readCapped(request, BODY_LIMIT, () => new CoreError(413, "request_too_large", `request body over the ${BODY_LIMIT}-byte limit`));
    const input = await admitCall(config, config.secret, { method: request.method, headers: request.headers, body }, {
      rateKey: path,
      now: opts.clock.now(),
      rate,
      remember: async (d) => remember(`${path} ${d.key}`, d.expiresAt),
    });
    const runId = prefixedId("wfr");
    const workflow = hook.workflow.name;
    opts.onRun({ kind: "started", runId, workflow, path, input });
    void runWorkflow(hook.workflow, input, { call: opts.call, metadata: { runId } }).then((result) => opts.onRun({ kind: "ended", runId, workflow, result }));
    return json({ run: { id: runId, object: "workflow_run", workflow, status: "running", input } }, 202);
  };

  return async (request: Request, listener: ListenerAddress): Promise<Response> => {
    try {
      const refused = guard(request, request.url, listener);
      if (refused) throw refused;
      return await admit(request);
    } catch (e) {
      if (!(e instanceof CoreError)) throw e;
      return errorResponse(e, prefixedId("req"), "spec");
    }
  };
}
