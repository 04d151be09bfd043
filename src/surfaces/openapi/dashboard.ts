// OpenAPI operations of the dashboard surface (src/surfaces/dashboard/index.ts).
import { Type as T, type TSchema } from "@sinclair/typebox";
import { DashboardLimit, DashboardLive, DashboardRunsPage, DashboardSeries, DashboardSummary, Offset, Range, RunRecord, StatusFilter } from "../schemas.ts";
import { type Operation, admin, errorResponses, jsonContent, jsonRequestBody, pathParameter, queryParameter } from "./common.ts";

const tags = ["dashboard"];

const html = (summary: string): Operation => ({
  tags,
  summary,
  description: "Open without the admin token (a browser navigation cannot send it); the page's data comes from /dashboard/api/*.",
  responses: { 200: { description: "The page", content: { "text/html": { schema: { type: "string" } } } } },
});

export const overview = html("Dashboard: traffic overview and request log");
export const settings = html("Dashboard: settings");

export const loginPage: Operation = {
  tags,
  summary: "Dashboard: sign in",
  description:
    "Open. `relay dashboard` prints a link to this page with the admin token in its fragment (`#<token>`), which browsers never send; the page's script posts it to POST /dashboard/login and removes it from the address bar. The token can also be pasted.",
  responses: { 200: { description: "The page", content: { "text/html": { schema: { type: "string" } } } } },
};

export const login: Operation = {
  tags,
  summary: "Trade the admin token for this listener's session cookie",
  description:
    "Sets `relay_admin_<port>` (HttpOnly, SameSite=Strict, Path=/, a session cookie) holding a value derived from the token and this listener's port, never the token itself; the admin routes accept it in place of the bearer token from this listener's own pages only.",
  requestBody: jsonRequestBody(T.Object({ token: T.String({ description: "the admin token in effect" }) }, { additionalProperties: false })),
  responses: {
    204: { description: "Signed in: the response carries Set-Cookie", headers: { "set-cookie": { description: "relay_admin_<port>=…; Path=/; HttpOnly; SameSite=Strict", schema: { type: "string" } } } },
    ...errorResponses("spec", { 400: "Invalid JSON", 401: "Not this Relay's admin token" }),
  },
};

/** The dashboard names its files: the descriptions stay shared plumbing that imports no surface. */
export const asset = (assets: Readonly<Record<string, { contentType: string }>>): Operation => ({
  tags,
  summary: "A dashboard script, stylesheet or icon (embedded in the binary)",
  parameters: [pathParameter("name", T.Union(Object.keys(assets).map((n) => T.Literal(n))), "the file")],
  responses: {
    200: { description: "The file, with an ETag", content: Object.fromEntries(Object.values(assets).map((a) => [a.contentType, { schema: { type: "string" } }])) },
    304: { description: "Not modified (If-None-Match matched)" },
    ...errorResponses("spec", { 404: "No such asset" }),
  },
});

/** The data endpoints answer with an ETag, and 304 to a matching If-None-Match. */
const data = (summary: string, schema: TSchema, extra: Pick<Operation, "parameters" | "responses"> = {}) =>
  admin({
    tags,
    summary,
    parameters: extra.parameters,
    responses: { 200: { description: "The data, with an ETag", content: jsonContent(schema) }, 304: { description: "Not modified" }, ...extra.responses },
  });

const badQuery = errorResponses("spec", { 400: "A query parameter is invalid (details.parameter names it)" });
const range = queryParameter("range", Range);

export const summary = data("Cards: requests, success rate, spend, latency, savings and per-model totals", DashboardSummary, { parameters: [range], responses: badQuery });
export const series = data("Chart points of the range", DashboardSeries, { parameters: [range], responses: badQuery });
export const runs = data("One page of the request log, newest first", DashboardRunsPage, {
  parameters: [
    queryParameter("limit", DashboardLimit),
    queryParameter("offset", Offset),
    queryParameter("status", StatusFilter),
    queryParameter("model", T.String(), "routed model"),
    queryParameter("provider", T.String()),
    queryParameter("session", T.String(), "session key"),
  ],
  responses: badQuery,
});
export const run = data("One logged request in full", RunRecord, {
  parameters: [pathParameter("id", T.String(), "the run id (the request's x-svc-request-id)")],
  responses: errorResponses("spec", { 404: "No run with that id" }),
});
export const live = data("Routing switch, provider health, budgets and rate-limit headroom", DashboardLive);
