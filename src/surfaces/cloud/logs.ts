// The team's request log over the hosted API (spec §2.7, §8; issue 37 item 5): GET /api/logs (a
// page, filtered), GET /api/logs/:id, GET /api/usage (totals over a window) on the pro plan, and
// GET /api/logs/export (CSV or JSON, an attachment) on maker and pro. Read-only keys are enough.
// A team sees its own runs only: another team's run is as unknown as a missing one (404).
import { Elysia } from "elysia";
import { CoreError } from "../../core/errors.ts";
import { invalid } from "../../core/registry/fields.ts";
import { PLANS, requirePlan } from "../../core/tenancy/plans.ts";
import { logsCsv, teamLog, teamLogs, teamUsage, type LogFilter, type LogRecord } from "../../core/tenancy/request-log.ts";
import { DAY_MS } from "../../core/tenancy/retention.ts";
import type { Relay } from "../../relay.ts";
import { json } from "../http.ts";
import * as docs from "../openapi/cloud-logs.ts";
import { guarded, READ, type HostedHandler } from "./auth.ts";
import { logFilterOf, windowOf } from "./log-query.ts";

/** Rows of one export at most, newest first; x-total-count says how many matched (offset or a narrower window gets the rest). */
export const EXPORT_MAX_ROWS = 10_000;
/** GET /api/usage's window when since is not given. */
const USAGE_DEFAULT_DAYS = 30;

const LOG_API = "the request log API";

/** The export's body and headers: an attachment named by team and day. */
export function exportResponse(records: LogRecord[], format: "csv" | "json", teamId: string, total: number): Response {
  const day = new Date().toISOString().slice(0, 10);
  const body = format === "csv" ? logsCsv(records) : JSON.stringify(records);
  return new Response(body, {
    headers: {
      "content-type": format === "csv" ? "text/csv; charset=utf-8" : "application/json",
      "content-disposition": `attachment; filename="relay-logs-${teamId}-${day}.${format}"`,
      "x-total-count": String(total),
    },
  });
}

/** The export's `format`: csv (the default) or json. */
export function exportFormatOf(url: URL): "csv" | "json" {
  const format = url.searchParams.get("format") ?? "csv";
  if (format !== "csv" && format !== "json") throw invalid("format", format, "string", "must be csv or json");
  return format;
}

/** The export's rows: the log filter's window, model and status, up to EXPORT_MAX_ROWS from its offset. */
export const exportFilterOf = (url: URL): LogFilter => ({ ...logFilterOf(url), limit: EXPORT_MAX_ROWS });

export function logHandlers(relay: Relay): Record<"list" | "get" | "usage" | "export", HostedHandler> {
  const runs = relay.store.runs;
  return {
    list: async (request, auth) => {
      requirePlan(auth.team.plan, "logApi", LOG_API);
      const f = logFilterOf(new URL(request.url));
      const page = await teamLogs(runs, auth.team.id, f);
      return json({ data: page.data, total: page.total, limit: f.limit, offset: f.offset });
    },
    get: async (_, auth, params) => {
      requirePlan(auth.team.plan, "logApi", LOG_API);
      const record = await teamLog(runs, auth.team.id, params.id!);
      if (!record) throw new CoreError(404, "not_found", `no request ${params.id} in this team's log`);
      return json(record);
    },
    usage: async (request, auth) => {
      requirePlan(auth.team.plan, "logApi", LOG_API);
      const now = Date.now();
      const w = windowOf(new URL(request.url).searchParams);
      // Runs older than the plan keeps may linger until the hourly retention pass: not counted.
      const kept = now - PLANS[auth.team.plan].logRetentionDays * DAY_MS;
      const since = Math.max(w.since ?? now - USAGE_DEFAULT_DAYS * DAY_MS, kept);
      return json(await teamUsage(runs, auth.team.id, since, Math.max(w.until ?? now, since)));
    },
    export: async (request, auth) => {
      requirePlan(auth.team.plan, "export", "exporting the request log");
      const url = new URL(request.url);
      const format = exportFormatOf(url);
      const page = await teamLogs(runs, auth.team.id, exportFilterOf(url));
      return exportResponse(page.data, format, auth.team.id, page.total);
    },
  };
}

export function logRoutes(relay: Relay) {
  const h = logHandlers(relay);
  return new Elysia({ name: "cloud-logs" })
    .get("/api/logs", guarded(relay, READ, h.list), { detail: docs.listLogs })
    .get("/api/logs/export", guarded(relay, READ, h.export), { detail: docs.exportLogs })
    .get("/api/logs/:id", guarded(relay, READ, h.get), { detail: docs.getLog })
    .get("/api/usage", guarded(relay, READ, h.usage), { detail: docs.usage });
}
