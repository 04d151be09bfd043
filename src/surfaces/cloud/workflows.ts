// Workflows over the hosted API (issue 39 items 4 and 6; docs/workflows.md "Cloud"): deploying a
// definition (a new version only when it changed) and listing them; triggering a deployed workflow by
// name (202 at once, the run goes on in the background: src/core/workflows/cloud/runner.ts), reading
// runs with their WorkflowResult, and the debug routes with every step's detail. Deploying and
// triggering take a standard key, reading a read-only one too; triggering needs the team's Cloud
// features (cloud_enabled). Another team's runs are as unknown as missing ones.
import { Elysia } from "elysia";
import { CoreError } from "../../core/errors.ts";
import { prefixedId } from "../../core/ids.ts";
import { text } from "../../core/registry/fields.ts";
import { definitionOf, deploy, deployedWorkflow, versionOf } from "../../core/workflows/cloud/deploy.ts";
import { triggerOf } from "../../core/workflows/cloud/trigger-config.ts";
import { registerTrigger, triggerView } from "../../core/workflows/cloud/triggers.ts";
import { enqueueRun, requireCloud } from "../../core/workflows/cloud/enqueue.ts";
import { debugRunView, runView, workflowView } from "../../core/workflows/cloud/views.ts";
import type { Relay } from "../../relay.ts";
import type { WorkflowRun } from "../../store/workflows/types.ts";
import { json } from "../http.ts";
import * as docs from "../openapi/cloud-workflows.ts";
import { pageOf } from "./paging.ts";
import { CORE, READ, guarded, type HostedAuth, type HostedHandler } from "./auth.ts";
import { hostedText, jsonObjectOf } from "./errors.ts";
import { idempotent } from "./idempotency.ts";
import { hooksUrl } from "./hooks.ts";

const DEFINITION_LIMIT = 512 * 1024;
const INPUT_LIMIT = 1024 * 1024;


async function teamRun(relay: Relay, auth: HostedAuth, id: string): Promise<WorkflowRun> {
  const run = await relay.store.workflows.getRun(id);
  if (!run || run.team_id !== auth.team.id) throw new CoreError(404, "not_found", `no workflow run ${id} in this team`);
  return run;
}

export function handlers(relay: Relay): Record<"deploy" | "list" | "trigger" | "runs" | "run" | "debugRuns" | "debugRun" | "debugWorkflows", HostedHandler> {
  const store = relay.store.workflows;
  const runs = async (request: Request, auth: HostedAuth) => {
    const { limit, offset } = pageOf(new URL(request.url).searchParams);
    const found = await store.listRuns(auth.team.id, limit, offset);
    return { data: found.runs.map(runView), total: found.total, limit, offset };
  };
  return {
    deploy: async (request, auth) => {
      const body = jsonObjectOf(await hostedText(request, DEFINITION_LIMIT));
      const definition = definitionOf(body);
      // The webhook trigger (spec §2.10) is the workflow's, not a version's: deploying replaces it.
      const spec = body.trigger === undefined ? undefined : triggerOf(body.trigger);
      const id = prefixedId("wf");
      const deployed = await deploy(store, auth.team.id, definition, relay.clock.now(), id);
      const trigger = await registerTrigger(relay, auth.team.id, definition.name, spec);
      const view = { workflow: workflowView(deployed), created: deployed.id === id, trigger: trigger ? triggerView(trigger, hooksUrl(relay, request)) : null };
      return json(view, deployed.id === id ? 201 : 200);
    },
    list: async (_, auth) => json({ data: (await store.listWorkflows(auth.team.id)).map(workflowView) }),
    trigger: async (request, auth) => {
      const raw = await hostedText(request, INPUT_LIMIT);
      return idempotent(relay, auth.team.id, request, raw, async () => {
        const body = jsonObjectOf(raw);
        const name = text(body.workflow, "workflow", 128);
        await requireCloud(relay.store.accounts, auth.team.id);
        const run = await enqueueRun(relay, auth.team.id, await deployedWorkflow(store, auth.team.id, name, versionOf(body.version)), body.input);
        return json({ run: runView(run!) }, 202);
      });
    },
    runs: async (request, auth) => json(await runs(request, auth)),
    run: async (_, auth, params) => json({ run: runView(await teamRun(relay, auth, params.id!)) }),
    debugRuns: async (request, auth) => json(await runs(request, auth)),
    debugRun: async (_, auth, params) => {
      const run = await teamRun(relay, auth, params.runId!);
      return json({ run: debugRunView(run, await store.getWorkflow(run.workflow_id), await store.steps(run.id)) });
    },
    debugWorkflows: async (_, auth) => json({ data: (await store.listWorkflows(auth.team.id)).map(workflowView) }),
  };
}

export function workflowRoutes(relay: Relay) {
  const h = handlers(relay);
  return new Elysia({ name: "cloud-workflows" })
    .post("/api/v1/workflows", guarded(relay, CORE, h.deploy), { parse: "none", detail: docs.deploy })
    .get("/api/v1/workflows", guarded(relay, READ, h.list), { detail: docs.list })
    .post("/api/v1/webhooks/trigger", guarded(relay, CORE, h.trigger), { parse: "none", detail: docs.trigger })
    .get("/api/v1/webhooks/runs", guarded(relay, READ, h.runs), { detail: docs.runs })
    .get("/api/v1/webhooks/runs/:id", guarded(relay, READ, h.run), { detail: docs.run })
    .get("/v1/debug/runs", guarded(relay, READ, h.debugRuns), { detail: docs.debugRuns })
    .get("/v1/debug/runs/:runId", guarded(relay, READ, h.debugRun), { detail: docs.debugRun })
    .get("/v1/debug/workflows", guarded(relay, READ, h.debugWorkflows), { detail: docs.debugWorkflows });
}
