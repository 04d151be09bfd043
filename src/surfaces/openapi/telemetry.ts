// OpenAPI operations of the telemetry surface (src/surfaces/telemetry/index.ts).
import { Days, Limit, Offset, ProviderHealth, RunsPage, Savings, TelemetryStats } from "../schemas.ts";
import { admin, errorResponses, jsonResponse, queryParameter } from "./common.ts";

const tags = ["telemetry"];
const badQuery = errorResponses("spec", { 400: "A query parameter is out of bounds (details.parameter names it)" });

export const stats = admin({
  tags,
  summary: "Traffic, spend, success rate and latency percentiles",
  parameters: [queryParameter("days", Days)],
  responses: { 200: jsonResponse("Statistics of the window", TelemetryStats), ...badQuery },
});

export const runs = admin({
  tags,
  summary: "The run log, newest first",
  parameters: [queryParameter("limit", Limit), queryParameter("offset", Offset)],
  responses: { 200: jsonResponse("One page of runs", RunsPage), ...badQuery },
});

export const savings = admin({
  tags,
  summary: "Savings against the baseline model",
  parameters: [queryParameter("days", Days)],
  responses: {
    200: jsonResponse("Savings of the window", Savings),
    ...errorResponses("spec", { 400: "A query parameter is out of bounds, or telemetry.baselineModel is not in the catalog" }),
  },
});

export const health = admin({
  tags,
  summary: "Provider health over the last hour",
  responses: { 200: jsonResponse("Each provider's state", ProviderHealth) },
});
