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
} from "../schemas.ts";
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
    ...errorResponses("spec", {
      400: "Invalid JSON, nested deeper than 16 levels, or the patch would make the configuration invalid",
      403: "forbidden_setting: the patch sets, deletes or replaces a setting that is file-only (marked httpEditable: false in the config schema: vendor base URLs, secrets, listen addresses, paths); details.parameter names it",
      409: "The config file is not valid JSON, over 1 MB or nested deeper than 32 levels",
      413: "The patch is over 64 KB (request_too_large), or the config file it produces would be over 1 MB (config_too_large)",
    }),
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
