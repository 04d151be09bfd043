// `relay cloud`: the hosted surfaces' listener. Health, the team's API keys and the agent registry are
// served so far; /api/relay, the console, the cloud routes and workflow hooks are not built yet (README).
import { Elysia } from "elysia";
import type { Relay } from "../../relay.ts";
import { json } from "../http.ts";
import * as docs from "../openapi/cloud.ts";
import { agentRoutes } from "./agents.ts";
import { hostedHealth } from "./health.ts";
import { keysRoutes } from "./keys.ts";

export function cloudSurface(relay: Relay) {
  const health = hostedHealth(relay);
  return new Elysia({ name: "cloud" })
    .use(keysRoutes(relay))
    .use(agentRoutes(relay))
    // /health answers 200 while the process serves (liveness); /api/health is 503 when degraded (readiness).
    .get("/health", async () => json(await health()), { detail: docs.liveness })
    .get("/api/health", async () => {
      const h = await health();
      return json(h, h.status === "ok" ? 200 : 503);
    }, { detail: docs.health });
}
