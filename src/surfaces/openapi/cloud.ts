// OpenAPI operations of the `relay cloud` surface (src/surfaces/cloud/index.ts).
import { HostedHealth } from "../schemas.ts";
import { type Operation, jsonResponse } from "./common.ts";

export const health: Operation = {
  tags: ["service"],
  summary: "Hosted health check (spec §2.5)",
  description: "The same answer at /health and /api/health.",
  responses: { 200: jsonResponse("The service's health; status is degraded when the database is not healthy", HostedHealth) },
};
