// A team's stored provider keys over the hosted API (issue 38 item 2; README "Provider credentials"):
// stored or replaced with PUT, listed masked, removed. Managing takes a standard key, listing a
// read-only one too. Sealing, checking and using them is src/core/tenancy/credentials.ts.
import { Elysia } from "elysia";
import { CoreError } from "../../core/errors.ts";
import { credentialFields, credentialView, deleteCredential, putCredential } from "../../core/tenancy/credentials.ts";
import type { Relay } from "../../relay.ts";
import { json } from "../http.ts";
import * as docs from "../openapi/cloud-credentials.ts";
import { CORE, READ, guarded, type HostedHandler } from "./auth.ts";
import { hostedJson } from "./errors.ts";

const BODY_LIMIT = 64 * 1024;

function handlers(relay: Relay): Record<"put" | "list" | "remove", HostedHandler> {
  const store = relay.store.credentials;
  return {
    put: async (request, auth) => {
      const fields = credentialFields(relay.registry, await hostedJson(request, BODY_LIMIT));
      return json({ credential: await putCredential(relay, auth.team.id, fields) });
    },
    list: async (_, auth) => json({ credentials: (await store.listCredentials(auth.team.id)).map(credentialView) }),
    remove: async (_, auth, params) => {
      const removed = await deleteCredential(relay, auth.team.id, params.provider!);
      if (!removed) throw new CoreError(404, "not_found", `no stored credential for provider ${params.provider} in this team`);
      return json({ credential: removed, deleted: true });
    },
  };
}

export function credentialRoutes(relay: Relay) {
  const h = handlers(relay);
  return new Elysia({ name: "cloud-credentials" })
    .put("/api/v1/credentials", guarded(relay, CORE, h.put), { parse: "none", detail: docs.putCredential })
    .get("/api/v1/credentials", guarded(relay, READ, h.list), { detail: docs.listCredentials })
    .delete("/api/v1/credentials/:provider", guarded(relay, CORE, h.remove), { parse: "none", detail: docs.deleteCredential });
}
