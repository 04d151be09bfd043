// Administrative routes: /control/*, /v1/config and /dashboard/config.
// All of them pass `requireAdmin` (a bearer token off loopback).
import { Elysia } from "elysia";
import { redact } from "../../config/redact.ts";
import { needsKey, providerKey } from "../../core/router/credentials.ts";
import type { Relay } from "../../relay.ts";
import { VERSION } from "../../version.ts";
import { adminGuard } from "../admin-auth.ts";
import { readBody } from "../body.ts";
import { parseJsonObject } from "../../core/json-object.ts";
import { CoreError } from "../../core/errors.ts";
import { json } from "../http.ts";
import * as docs from "../openapi/control.ts";
import { patchConfig } from "./patch-config.ts";

function providerStatus(relay: Relay) {
  const snapshot = new Map(relay.cooldown.snapshot().map((s) => [s.provider, s]));
  return [...relay.registry.providers.values()].map((p) => {
    const cd = snapshot.get(p.name);
    const hasKey = !needsKey(p) || providerKey(p, relay.config(), relay.env) !== undefined;
    return {
      provider: p.name,
      credentials: hasKey,
      state: cd?.state === "cooled_down" ? "cooled_down" : hasKey ? "available" : "no_credentials",
      cooldownEndsAt: cd?.cooldownEndsAt ? new Date(cd.cooldownEndsAt).toISOString() : undefined,
      recentFailures: cd?.recentFailures ?? 0,
      lastError: cd?.lastError,
    };
  });
}

async function killBody(request: Request): Promise<{ sessionKey: string } | { all: true }> {
  const body = parseJsonObject(await readBody(request, 64 * 1024));
  if (body.all === true) return { all: true };
  if (typeof body.sessionKey === "string" && body.sessionKey.trim()) return { sessionKey: body.sessionKey };
  throw new CoreError(400, "invalid_request", "kill expects {\"sessionKey\": string} or {\"all\": true}", {
    details: { parameter: "sessionKey", provided: body.sessionKey, expected: "string" },
  });
}

export function controlSurface(relay: Relay) {
  return new Elysia({ name: "control" })
    .onBeforeHandle({ as: "local" }, adminGuard(() => relay.config()))
    .post("/control/enable", () => {
      relay.control.enable();
      relay.log.info("routing enabled");
      return json({ routing: "enabled" });
    }, { parse: "none", detail: docs.enable })
    .post("/control/disable", () => {
      relay.control.disable();
      relay.log.info("routing disabled");
      return json({ routing: "disabled" });
    }, { parse: "none", detail: docs.disable })
    .get("/control/status", () =>
      json({
        version: VERSION,
        uptime: Math.floor((Date.now() - relay.startedAt) / 1000),
        ...relay.control.snapshot(),
        providers: providerStatus(relay),
        plugins: {
          loaded: relay.plugins.loaded.map((p) => ({ file: p.file, kind: p.plugin.kind, name: p.plugin.name })),
          failed: relay.plugins.failed,
        },
      }),
    { detail: docs.status })
    .get("/control/stats", async () => {
      const since = Date.now() - 86_400_000;
      const [totals, budget] = await Promise.all([relay.store.runs.totals(since), relay.budget.status()]);
      return json({ window: "24h", totals, budget, runLog: { ...relay.writer.stats, pending: relay.writer.pending } });
    }, { detail: docs.stats })
    .post("/control/config", ({ request }) => patchConfig(relay, request), { parse: "none", detail: docs.patchConfig })
    .post("/control/kill", async ({ request }) => {
      const target = await killBody(request);
      const aborted = relay.control.kill(target);
      relay.log.warn("sessions killed", { target: "all" in target ? "all" : target.sessionKey, aborted });
      return json({ killed: "all" in target ? "all" : target.sessionKey, aborted });
    }, { parse: "none", detail: docs.kill })
    .get("/v1/config", () => json(redact(relay.config())), { detail: docs.config })
    .get("/dashboard/config", () => json({ config: redact(relay.config()), sources: relay.loaded.sources, file: relay.loaded.file }), { detail: docs.dashboardConfig });
}
