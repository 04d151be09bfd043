// OpenAPI operations of the admin surface (src/surfaces/control/index.ts).
import {
  Config,
  ConfigPatch,
  ConfigPatchResult,
  ControlStats,
  ControlStatus,
  DashboardConfig,
  KillRequest,
  KillResult,
  RoutingSwitch,
} from "../../schemas.ts";
import { type Operation, admin, errorResponses, jsonRequestBody, jsonResponse } from "./common.ts";

const tags = ["control"];

export const enable = admin({
  tags,
  summary: "Enable routing",
  description: "Turns routing on and lifts every session kill.",
  responses: { 200: jsonResponse("Routing is on", RoutingSwitch) },
});

export const disable = admin({
  tags,
  summary: "Disable routing",
  description: "Model requests are refused until routing is enabled again.",
  responses: { 200: jsonResponse("Routing is off", RoutingSwitch) },
});

export const status = admin({
  tags,
  summary: "Routing switch, sessions, providers and plugins",
  responses: { 200: jsonResponse("The proxy's state", ControlStatus) },
});

export const stats = admin({
  tags,
  summary: "Traffic totals of the last 24 hours, budgets and run-log writer counters",
  responses: { 200: jsonResponse("The statistics", ControlStats) },
});

export const patchConfig = admin({
  tags,
  summary: "Patch the configuration",
  description: "Merges the patch into the config file, validates the layered result, writes the file atomically and applies it live.",
  requestBody: jsonRequestBody(ConfigPatch),
  responses: {
    200: jsonResponse("The new effective configuration (redacted)", ConfigPatchResult),
    ...errorResponses("spec", { 400: "Invalid JSON, or the patch would make the configuration invalid", 409: "The config file is not valid JSON", 500: "Request body too large" }),
  },
});

export const kill = admin({
  tags,
  summary: "End a session, or all sessions",
  requestBody: jsonRequestBody(KillRequest),
  responses: { 200: jsonResponse("What was ended", KillResult), ...errorResponses("spec", { 400: "Neither a sessionKey nor all: true" }) },
});

export const config = admin({
  tags,
  summary: "The effective configuration (redacted)",
  responses: { 200: jsonResponse("The configuration", Config) },
});

export const dashboardConfig: Operation = admin({
  tags,
  summary: "The effective configuration with the layer each value came from",
  responses: { 200: jsonResponse("The configuration and its sources", DashboardConfig) },
});
