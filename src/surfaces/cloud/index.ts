// `relay cloud`: the hosted surfaces' listener: the hosted API of the spec and its console
// (./console/), the cloud routes of §4.3 and the §4.4 workflow trigger paths (./hooks.ts). It also
// starts the background jobs that work from the store (webhook deliveries, benchmark runs, workflow
// runs, schedules).
import { Elysia } from "elysia";
import type { Relay } from "../../relay.ts";
import { json } from "../http.ts";
import * as docs from "../openapi/cloud.ts";
import { agentRoutes } from "./agents.ts";
import { hostedHealth } from "./health.ts";
import { keysRoutes } from "./keys.ts";
import { logRoutes } from "./logs.ts";
import { consoleSurface } from "./console/index.ts";
import { credentialRoutes } from "./credentials.ts";
import { benchmarkRoutes } from "./benchmarks.ts";
import { accountRoutes } from "./accounts.ts";
import { relayHandler } from "./relay.ts";
import { webhookRoutes } from "./webhooks.ts";
import { publicDataRoutes } from "./public-data.ts";
import { billingRoutes } from "./billing.ts";
import { telemetryRoutes } from "./telemetry.ts";
import { versionRoutes } from "./version.ts";
import { workflowRoutes } from "./workflows.ts";
import { scheduleRoutes } from "./schedules.ts";
import { hookRoutes } from "./hooks.ts";
import * as relayDocs from "../openapi/cloud-relay.ts";

export function cloudSurface(relay: Relay) {
  const health = hostedHealth(relay);
  // Webhook deliveries go out while the cloud listener serves; Relay.close stops them.
  relay.webhookDispatcher.start();
  // Benchmark runs too, resuming those a previous process left (src/core/benchmarks/runner.ts).
  relay.benchmarkRunner.start();
  // And workflow runs, resuming those a previous process left (src/core/workflows/cloud/runner.ts).
  relay.workflowRunner.start();
  // And workflow schedules (src/core/workflows/cloud/scheduler.ts).
  relay.scheduler.start();
  return new Elysia({ name: "cloud" })
    .use(keysRoutes(relay))
    .use(agentRoutes(relay))
    .use(logRoutes(relay))
    .use(consoleSurface(relay))
    .use(webhookRoutes(relay))
    .use(credentialRoutes(relay))
    .use(benchmarkRoutes(relay))
    .use(accountRoutes(relay))
    .use(publicDataRoutes(relay))
    .use(billingRoutes(relay))
    .use(telemetryRoutes(relay))
    .use(versionRoutes())
    .use(workflowRoutes(relay))
    .use(scheduleRoutes(relay))
    .use(hookRoutes(relay))
    .post("/api/relay", relayHandler(relay), { parse: "none", detail: relayDocs.relay })
    // /health answers 200 while the process serves (liveness); /api/health is 503 when degraded (readiness).
    .get("/health", async () => json(await health()), { detail: docs.liveness })
    .get("/api/health", async () => {
      const h = await health();
      return json(h, h.status === "ok" ? 200 : 503);
    }, { detail: docs.health });
}
