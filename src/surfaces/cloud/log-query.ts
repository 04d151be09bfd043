// The request log's query parameters, read the same way by the log API (logs.ts) and the console:
// limit (default 50, at most 100), offset, since and until (ISO 8601, both inclusive), model (the
// model that answered) and status. Each invalid one is a 400 naming it in details.parameter.
import { invalid, text } from "../../core/registry/fields.ts";
import type { LogFilter } from "../../core/tenancy/request-log.ts";
import { pageOf } from "./paging.ts";

/**
 * A date (UTC midnight) or a date-time with its zone: one without a zone would be read in the
 * server's own time zone, which a client cannot know.
 */
const ISO_8601 = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2}))?$/i;

/** `name`'s time in ms since the epoch, when given; 400 when it is not an ISO 8601 date or date-time. */
export function timeParam(query: URLSearchParams, name: string): number | undefined {
  const raw = query.get(name);
  if (raw === null) return undefined;
  const ms = ISO_8601.test(raw) ? Date.parse(raw) : Number.NaN;
  if (!Number.isFinite(ms)) throw invalid(name, raw, "string", "must be an ISO 8601 date (2026-11-01) or date-time with a time zone (2026-11-01T09:30:00Z)");
  return ms;
}

/** since and until, when given; 400 on until when it is before since. */
export function windowOf(query: URLSearchParams): { since?: number; until?: number } {
  const since = timeParam(query, "since");
  const until = timeParam(query, "until");
  if (since !== undefined && until !== undefined && until < since) throw invalid("until", query.get("until"), "string", "must not be before since");
  return { since, until };
}

function statusParam(query: URLSearchParams): number | undefined {
  const raw = query.get("status");
  if (raw === null) return undefined;
  const n = /^\d{3}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(n >= 100 && n <= 599)) throw invalid("status", raw, "integer", "must be an HTTP status from 100 to 599");
  return n;
}

export function logFilterOf(url: URL): LogFilter {
  const query = url.searchParams;
  const model = query.get("model");
  return {
    ...pageOf(query),
    ...windowOf(query),
    model: model === null ? undefined : text(model, "model", 256),
    status: statusParam(query),
  };
}
