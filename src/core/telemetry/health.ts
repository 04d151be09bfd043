// Provider health read model: each provider's state over the last hour, from the run log, the
// cooldown tracker and the credentials it can find.
import type { RunLog } from "../../store/runs/types.ts";
import { needsKey, providerKey } from "../router/credentials.ts";
import type { RouterDeps } from "../router/deps.ts";

export interface HealthSource extends Pick<RouterDeps, "config" | "env" | "registry" | "cooldown"> {
  store: { readonly runs: Pick<RunLog, "totalsByModel"> };
}

/** Per-provider state over the last hour: healthy, degraded, cooled_down or no_credentials. */
export async function health(source: HealthSource) {
  const byModel = await source.store.runs.totalsByModel(Date.now() - 3_600_000);
  const cooldowns = new Map(source.cooldown.snapshot().map((s) => [s.provider, s]));
  return {
    window: "1h",
    providers: [...source.registry.providers.values()].map((p) => {
      const rows = byModel.filter((m) => m.provider === p.name);
      const requests = rows.reduce((s, r) => s + r.requests, 0);
      const errors = rows.reduce((s, r) => s + r.errors, 0);
      const cd = cooldowns.get(p.name);
      const hasKey = !needsKey(p) || providerKey(p, source.config(), source.env) !== undefined;
      const successRate = requests ? (requests - errors) / requests : null;
      const state =
        cd?.state === "cooled_down" ? "cooled_down" : !hasKey ? "no_credentials" : (cd?.recentFailures ?? 0) > 0 || (successRate !== null && successRate < 0.9) ? "degraded" : "healthy";
      return {
        provider: p.name,
        state,
        requests,
        successRate,
        recentFailures: cd?.recentFailures ?? 0,
        lastError: cd?.lastError ?? null,
        lastFailureAt: cd?.lastFailureAt ? new Date(cd.lastFailureAt).toISOString() : null,
        cooldownEndsAt: cd?.cooldownEndsAt ? new Date(cd.cooldownEndsAt).toISOString() : null,
      };
    }),
  };
}
