// OpenAPI operations of the proxy's mesh routes (src/surfaces/control/mesh.ts).
import { Type as T } from "@sinclair/typebox";
import { admin, errorResponses, jsonResponse } from "./common.ts";

const tags = ["mesh"];
const Iso = T.Union([T.String({ format: "date-time" }), T.Null()]);

const MeshStats = T.Object(
  {
    enabled: T.Boolean(),
    url: T.Union([T.String(), T.Null()], { description: "mesh.url" }),
    intervalSec: T.Integer(),
    sent: T.Object({ batches: T.Integer(), outcomes: T.Integer() }, { description: "acknowledged by the cloud since the start" }),
    received: T.Object({ pulls: T.Integer(), rows: T.Integer({ description: "rows of the last pull" }), models: T.Integer({ description: "models the last pull reported on" }) }),
    pending: T.Integer({ description: "outcomes waiting to be sent" }),
    dropped: T.Integer({ description: "outcomes dropped because too many waited (10,000)" }),
    syncs: T.Integer(),
    errors: T.Integer({ description: "syncs that failed" }),
    lastSyncAt: Iso,
    lastSuccessAt: Iso,
    lastError: T.Union([T.String(), T.Null()]),
  },
  { $id: "MeshStats" },
);

export const stats = admin({
  tags,
  summary: "Mesh statistics",
  description: "What this proxy sent to the mesh and received from it, its last sync and the errors.",
  responses: { 200: jsonResponse("The mesh's counters", MeshStats) },
});

export const sync = admin({
  tags,
  summary: "Sync with the mesh now",
  description:
    "Sends the anonymised outcomes waiting (model, provider, tier, bucket, class, latency, cost, escalations; never text) to the cloud's POST /v1/telemetry, then pulls its aggregates (GET /v1/status), which the strategies use from the next request. It also runs every mesh.intervalSec.",
  responses: {
    200: jsonResponse("The mesh's counters after the sync", MeshStats),
    ...errorResponses("spec", {
      409: "the mesh is off (mesh_disabled), or mesh.url or mesh.apiKey is not set (mesh_not_configured)",
      502: "the cloud refused or did not answer (mesh_sync_failed; lastError in GET /v1/mesh/stats says why)",
    }),
  },
});
