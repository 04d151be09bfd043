// OpenAPI operations of the `relay cloud` surface (src/surfaces/cloud/index.ts).
import { HostedHealth } from "../schemas.ts";
import { type Operation, jsonResponse } from "./common.ts";

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
