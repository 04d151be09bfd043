// /v1/telemetry/*: what the run log says about traffic, spend, savings and
// provider health.
import { Elysia } from "elysia";
import { health } from "../../core/telemetry/health.ts";
import { savingsSince } from "../../core/telemetry/savings.ts";
import { statsSince } from "../../core/telemetry/stats.ts";
import type { Relay } from "../../relay.ts";
import { adminGuard } from "../admin-auth.ts";
import { json } from "../http.ts";
import { intParam } from "../query.ts";
import * as docs from "../openapi/telemetry.ts";

const DAY_MS = 86_400_000;

export function telemetrySurface(relay: Relay) {
  // Run logs hold metadata and session keys: guarded like the admin routes off loopback.
  return new Elysia({ name: "telemetry" })
    .onBeforeHandle({ as: "local" }, adminGuard(() => relay.config()))
    .get("/v1/telemetry/stats", async ({ request }) => {
      const days = intParam(new URL(request.url), "days", 7, 1, 365);
      return json({ days, ...(await statsSince(relay, Date.now() - days * DAY_MS)) });
    }, { detail: docs.stats })
    .get("/v1/telemetry/runs", async ({ request }) => {
      const url = new URL(request.url);
      const limit = intParam(url, "limit", 50, 1, 1000);
      const offset = intParam(url, "offset", 0, 0, Number.MAX_SAFE_INTEGER);
      const { runs, total } = await relay.store.runs.listRuns({ limit, offset });
      return json({ runs, total, limit, offset });
    }, { detail: docs.runs })
    .get("/v1/telemetry/savings", async ({ request }) => {
      const days = intParam(new URL(request.url), "days", 7, 1, 365);
      return json({ days, ...(await savingsSince(relay, Date.now() - days * DAY_MS)) });
    }, { detail: docs.savings })
    .get("/v1/telemetry/health", async () => json(await health(relay)), { detail: docs.health });
}
