// OpenAPI operations of the `relay cloud` surface (src/surfaces/cloud/index.ts).
import { HostedHealth, SpecError } from "../schemas.ts";
import { type Operation, jsonResponse } from "./common.ts";

type Responses = NonNullable<Operation["responses"]>;

const INTERNAL = "Relay's own fault (internal_error): its store or another dependency failed, or a bug; the request_id finds the request in the server's log";

/**
 * An operation's responses with the refusals `byStatus` added in the hosted error object (spec §2.6),
 * and the 500 every hosted route can answer unless the operation describes its own. A status both
 * name keeps both descriptions. The cloud-*.ts operations take their refusals through this (guarded()
 * in cloud-keys.ts does), so each documents the shape the cloud listener really answers.
 */
export function withHostedErrors(responses: Record<string, object>, byStatus: Record<number, string>): Responses {
  const out: Record<string, object> = { 500: jsonResponse(INTERNAL, SpecError), ...responses };
  for (const [status, description] of Object.entries(byStatus)) {
    const own = out[status] as { description: string } | undefined;
    out[status] = own ? { ...own, description: `${own.description}; ${description}` } : jsonResponse(description, SpecError);
  }
  return out as Responses;
}

const HEALTH_VALUES =
  "Each service is `healthy` or names what is wrong. database: `unreachable` (the liveness query failed or took over 2 s), " +
  "`integrity_failed` (the integrity check or the schema version failed). cache: Redis when `cloud.redisUrl` is set, " +
  "`unreachable` when it does not answer PING within 2 s; otherwise the in-process cache, `unhealthy` when its probe fails. " +
  "ai_providers: `no_credentials` (no enabled provider has a key), `all_cooled_down` (every provider with a key is cooled down). " +
  "No key is needed; why a service is not healthy is logged, not answered.";

export const health: Operation = {
  tags: ["service"],
  summary: "Hosted health check (spec §2.5), for a load balancer's readiness probe",
  description: `200 with status ok when every service is healthy; 503 with status degraded otherwise. ${HEALTH_VALUES}`,
  responses: {
    200: jsonResponse("Every service is healthy", HostedHealth),
    503: jsonResponse("At least one service is not healthy (status degraded)", HostedHealth),
  },
};

export const liveness: Operation = {
  tags: ["service"],
  summary: "Liveness check of the `relay cloud` process",
  description: `The same body as /api/health, always with 200 while the process serves: a liveness probe should not restart an instance because a shared dependency is down. ${HEALTH_VALUES}`,
  responses: { 200: jsonResponse("The process serves; the body says how its services are", HostedHealth) },
};
