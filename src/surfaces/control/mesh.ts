// The proxy's mesh routes (issue 38 item 6; README "Telemetry and the mesh"): GET /v1/mesh/stats (what
// was sent and received, the last sync, errors) and POST /v1/mesh/sync (push and pull now). Admin
// routes like /control/*; building the surface starts the timed syncs (src/core/mesh/sync.ts).
import { Elysia } from "elysia";
import type { Relay } from "../../relay.ts";
import { adminGuard } from "../admin-auth.ts";
import { json } from "../http.ts";
import * as docs from "../openapi/mesh.ts";

export function meshSurface(relay: Relay) {
  relay.meshSync.start();
  return new Elysia({ name: "mesh" })
    .onBeforeHandle({ as: "local" }, adminGuard(() => relay.config()))
    .get("/v1/mesh/stats", () => json(relay.meshSync.stats()), { detail: docs.stats })
    .post(
      "/v1/mesh/sync",
      async () => {
        await relay.meshSync.sync();
        return json(relay.meshSync.stats());
      },
      { parse: "none", detail: docs.sync },
    );
}
