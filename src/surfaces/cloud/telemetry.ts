// The cloud's telemetry and mesh routes (issue 38 items 4 and 6; README "Telemetry and the mesh"):
// uploads of mesh outcomes (POST /v1/telemetry) and of run records (POST /v1/telemetry/logs), both
// idempotent on their batch_id; the team's traffic, runs and savings in the proxy's §4.2 shapes
// (GET /v1/telemetry/stats|runs|savings, from the same read models over the team's runs only);
// provider health across every report (GET /v1/telemetry/health); the mesh status proxies pull
// (GET /v1/status); and a model recommendation for a request's features (POST /v1/route).
import { Elysia } from "elysia";
import { meshHealth, meshStatus, recommend } from "../../core/mesh/aggregate.ts";
import { batchIdOf, outcomeBatch } from "../../core/mesh/ingest.ts";
import { outcomesOf } from "../../core/mesh/outcome.ts";
import { requestBucket } from "../../core/mesh/bucket.ts";
import { routeQuery } from "../../core/mesh/route-query.ts";
import { runBatch } from "../../core/mesh/run-upload.ts";
import { teamRunView } from "../../core/mesh/team-runs.ts";
import { savingsSince } from "../../core/telemetry/savings.ts";
import { statsSince } from "../../core/telemetry/stats.ts";
import type { Relay } from "../../relay.ts";
import { json } from "../http.ts";
import * as docs from "../openapi/cloud-mesh.ts";
import { intParam } from "../query.ts";
import { CORE, READ, guarded, type HostedHandler } from "./auth.ts";
import { hostedJson } from "./errors.ts";

const DAY_MS = 86_400_000;
/** 1,000 outcomes of about 250 bytes each, with room to spare. */
const OUTCOMES_LIMIT = 1024 * 1024;
/** 1,000 runs with their metadata. */
const LOGS_LIMIT = 4 * 1024 * 1024;

type Name = "outcomes" | "logs" | "stats" | "runs" | "savings" | "health" | "status" | "route";

function handlers(relay: Relay): Record<Name, HostedHandler> {
  const mesh = relay.store.mesh;
  const daysOf = (request: Request) => intParam(new URL(request.url), "days", 7, 1, 365);
  return {
    outcomes: async (request, auth) => {
      const { batchId, outcomes } = outcomeBatch(await hostedJson(request, OUTCOMES_LIMIT));
      await mesh.insertOutcomes(auth.team.id, batchId, outcomes);
      const fresh = await mesh.recordBatch(auth.team.id, "outcomes", batchId, outcomes.length, relay.clock.now());
      return json({ batch_id: batchId, accepted: fresh ? outcomes.length : 0, duplicate: !fresh });
    },
    logs: async (request, auth) => {
      const body = await hostedJson(request, LOGS_LIMIT);
      const batchId = batchIdOf(body);
      const runs = runBatch(body, auth.team.id);
      // The runs are the team's log; their anonymised outcomes feed the mesh's aggregates too.
      await relay.store.runs.insertRuns(runs);
      await mesh.insertOutcomes(auth.team.id, `logs:${batchId}`, runs.flatMap((r) => outcomesOf(r, requestBucket(r.tier, r.inputTokens))));
      const fresh = await mesh.recordBatch(auth.team.id, "logs", batchId, runs.length, relay.clock.now());
      return json({ batch_id: batchId, accepted: fresh ? runs.length : 0, duplicate: !fresh });
    },
    stats: async (request, auth) => {
      const days = daysOf(request);
      const source = { store: { runs: teamRunView(relay.store.runs, auth.team.id) } };
      return json({ days, ...(await statsSince(source, relay.clock.now() - days * DAY_MS)) });
    },
    runs: async (request, auth) => {
      const url = new URL(request.url);
      const limit = intParam(url, "limit", 50, 1, 1000);
      const offset = intParam(url, "offset", 0, 0, Number.MAX_SAFE_INTEGER);
      const { runs, total } = await relay.store.runs.listRuns({ limit, offset, teamId: auth.team.id });
      return json({ runs, total, limit, offset });
    },
    savings: async (request, auth) => {
      const days = daysOf(request);
      const source = { store: { runs: teamRunView(relay.store.runs, auth.team.id) }, catalog: relay.catalog, config: () => relay.config() };
      return json({ days, ...(await savingsSince(source, relay.clock.now() - days * DAY_MS)) });
    },
    health: async () => json(await meshHealth(mesh, relay.clock.now())),
    status: async (_, auth) => json(await meshStatus(mesh, auth.team.id, relay.clock.now())),
    route: async (request) => {
      const q = routeQuery(await hostedJson(request, 64 * 1024));
      const price = (r: { provider: string; model: string }) => relay.catalog.resolve(`${r.provider}:${r.model}`)?.price;
      return json(await recommend(mesh, q, price, relay.clock.now()));
    },
  };
}

export function telemetryRoutes(relay: Relay) {
  const h = handlers(relay);
  return new Elysia({ name: "cloud-telemetry" })
    .post("/v1/telemetry", guarded(relay, CORE, h.outcomes), { parse: "none", detail: docs.outcomes })
    .post("/v1/telemetry/logs", guarded(relay, CORE, h.logs), { parse: "none", detail: docs.logs })
    .get("/v1/telemetry/stats", guarded(relay, READ, h.stats), { detail: docs.stats })
    .get("/v1/telemetry/runs", guarded(relay, READ, h.runs), { detail: docs.runs })
    .get("/v1/telemetry/savings", guarded(relay, READ, h.savings), { detail: docs.savings })
    .get("/v1/telemetry/health", guarded(relay, READ, h.health), { detail: docs.health })
    .get("/v1/status", guarded(relay, READ, h.status), { detail: docs.status })
    .post("/v1/route", guarded(relay, CORE, h.route), { parse: "none", detail: docs.route });
}
