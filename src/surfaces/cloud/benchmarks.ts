// Benchmarks over the hosted API (issue 38 item 5; README "Model benchmarks"): a run asked for (queued and
// run in the background by src/core/benchmarks/runner.ts), the team's runs listed, one read with its
// results, a model's history and a comparison of models. Asking for a run takes a standard key,
// reading a read-only one too. Another team's runs are as unknown as missing ones.
import { Elysia } from "elysia";
import { CoreError } from "../../core/errors.ts";
import { newRun } from "../../core/benchmarks/runs.ts";
import { summarize } from "../../core/benchmarks/scoring.ts";
import { runDetail, runView } from "../../core/benchmarks/views.ts";
import { invalid, text } from "../../core/registry/fields.ts";
import type { Relay } from "../../relay.ts";
import { json } from "../http.ts";
import * as docs from "../openapi/cloud-benchmarks.ts";
import { pageOf } from "./paging.ts";
import { CORE, READ, guarded, type HostedHandler } from "./auth.ts";
import { hostedText, jsonObjectOf } from "./errors.ts";
import { idempotent } from "./idempotency.ts";

/** An uploaded set of 50 prompts of 4,000 characters fits. */
const BODY_LIMIT = 256 * 1024;
/** Models one comparison reads at most. */
const MAX_COMPARED = 10;
/** A comparison sums up each model's latest results, at most this many. */
export const COMPARED_RESULTS = 10_000;


/** `models=a,b`: 1 to MAX_COMPARED names. */
function comparedModels(query: URLSearchParams): string[] {
  const raw = query.get("models");
  const models = raw === null ? [] : raw.split(",").map((m) => m.trim());
  if (models.length === 0 || models.length > MAX_COMPARED || models.some((m) => m === "" || m.length > 256)) {
    throw invalid("models", raw, "string", `must be 1 to ${MAX_COMPARED} model names separated by commas`);
  }
  return [...new Set(models)];
}

function handlers(relay: Relay): Record<"run" | "list" | "get" | "history" | "comparison", HostedHandler> {
  const store = relay.store.benchmarks;
  return {
    run: async (request, auth) => {
      const raw = await hostedText(request, BODY_LIMIT);
      return idempotent(relay, auth.team.id, request, raw, async () => {
        const run = newRun(relay.catalog, auth.team, jsonObjectOf(raw), relay.clock.now());
        await store.insertRun(run);
        relay.benchmarkRunner.kick();
        return json({ benchmark: runView(run) }, 202);
      });
    },
    list: async (request, auth) => {
      const { limit, offset } = pageOf(new URL(request.url).searchParams);
      const found = await store.listRuns(auth.team.id, limit, offset);
      return json({ data: found.runs.map(runView), total: found.total, limit, offset });
    },
    get: async (_, auth, params) => {
      const run = await store.getRun(params.id!);
      if (!run || run.team_id !== auth.team.id) throw new CoreError(404, "not_found", `no benchmark run ${params.id} in this team`);
      return json({ benchmark: runDetail(run, await store.runResults(run.id)) });
    },
    history: async (request, auth, params) => {
      const model = text(params.model, "model", 256);
      const { limit, offset } = pageOf(new URL(request.url).searchParams);
      const found = await store.modelRuns(auth.team.id, model, limit, offset);
      const results = await store.resultsOf(found.runs.map((r) => r.id), model);
      const data = found.runs.map((r) => ({
        run_id: r.id,
        prompt_set: r.prompt_set.name,
        status: r.status,
        created_at: new Date(r.created_at).toISOString(),
        ...summarize(results.filter((x) => x.run_id === r.id)),
      }));
      return json({ model, data, total: found.total, limit, offset });
    },
    comparison: async (request, auth) => {
      const query = new URL(request.url).searchParams;
      const models = comparedModels(query);
      const set = query.get("set") === null ? undefined : text(query.get("set"), "set", 64);
      const summaries = await Promise.all(models.map(async (model) => ({ model, ...summarize(await store.modelResults(auth.team.id, model, set, COMPARED_RESULTS)) })));
      return json({ prompt_set: set ?? null, models: summaries });
    },
  };
}

export function benchmarkRoutes(relay: Relay) {
  const h = handlers(relay);
  return new Elysia({ name: "cloud-benchmarks" })
    .post("/api/v1/benchmarks/run", guarded(relay, CORE, h.run), { parse: "none", detail: docs.runBenchmark })
    .get("/api/v1/benchmarks", guarded(relay, READ, h.list), { detail: docs.listBenchmarks })
    .get("/api/v1/benchmarks/comparison", guarded(relay, READ, h.comparison), { detail: docs.comparison })
    .get("/api/v1/benchmarks/history/:model", guarded(relay, READ, h.history), { detail: docs.history })
    .get("/api/v1/benchmarks/:id", guarded(relay, READ, h.get), { detail: docs.getBenchmark });
}
