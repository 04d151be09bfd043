// `relay cloud`: the hosted surfaces' listener. Only health is served so far;
// the hosted API, cloud routes and workflow hooks are not built yet (README).
import { Elysia } from "elysia";
import type { Relay } from "../../relay.ts";
import { VERSION } from "../../version.ts";
import { json } from "../http.ts";
import * as docs from "../openapi/cloud.ts";

async function hostedHealth(relay: Relay) {
  const database = await relay.store.integrityCheck().then((ok) => (ok ? "healthy" : "unhealthy"), () => "unreachable");
  return {
    status: database === "healthy" ? "ok" : "degraded",
    timestamp: new Date().toISOString(),
    version: VERSION,
    uptime: Math.floor((Date.now() - relay.startedAt) / 1000),
    services: { database, cache: "not_configured", ai_providers: relay.registry.providers.size > 0 ? "healthy" : "unconfigured" },
  };
}

export function cloudSurface(relay: Relay) {
  return new Elysia({ name: "cloud" })
    .get("/health", async () => json(await hostedHealth(relay)), { detail: docs.health })
    .get("/api/health", async () => json(await hostedHealth(relay)), { detail: docs.health });
}
