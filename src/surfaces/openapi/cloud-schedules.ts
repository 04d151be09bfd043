// OpenAPI operations of workflow schedules (src/surfaces/cloud/schedules.ts).
import { type TSchema, Type as T } from "@sinclair/typebox";
import { guarded } from "./cloud-keys.ts";
import { errorResponses, jsonRequestBody, jsonResponse, pathParameter, queryParameter } from "./common.ts";

const Iso = T.String({ format: "date-time" });
const Nullable = <S extends TSchema>(s: S) => T.Union([s, T.Null()]);
const CRON = T.String({ maxLength: 256, description: "5 fields (minute hour day-of-month month day-of-week), or 6 with seconds first; read on the time zone's wall clock (croner)" });
const ZONE = T.String({ maxLength: 64, description: "IANA time zone, e.g. America/New_York; default UTC" });

const Schedule = T.Object(
  {
    id: T.String({ pattern: "^sch_" }),
    object: T.Literal("schedule"),
    workflow: T.String({ description: "the deployed workflow's name; each firing runs its latest version" }),
    cron: T.String(),
    timezone: T.String(),
    input: T.Any({ description: "each run's input" }),
    paused: T.Boolean(),
    next_fire_at: Nullable(Iso),
    last_fired_at: Nullable(T.String({ format: "date-time", description: "the instant of the last firing that started a run" })),
    last_run_id: Nullable(T.String({ pattern: "^wfr_", description: "that run (GET /api/v1/webhooks/runs/:id)" })),
    skipped_firings: T.Integer({ description: "firings that started no run: the previous run was still queued or running, or the team's Cloud features were off" }),
    created_at: Iso,
    updated_at: Iso,
  },
  { $id: "Schedule" },
);

const POLICIES =
  "Daylight saving follows croner: a fixed time (`30 2 * * *`) that a spring-forward skips fires at the first valid time after the gap, that day; one a fall-back repeats fires once, at its first occurrence; " +
  "an interval expression (`*/30 * * * *`) skips the gap's times and fires on both passes through a repeated hour. " +
  "A firing while the schedule's previous run is still queued or running is skipped (overlap); after downtime a schedule fires once for all the instants it missed, then goes on from the current time (catch-up). " +
  "Each instant fires once, however many instances share the database.";

const id = pathParameter("id", T.String({ pattern: "^sch_" }), "the schedule's id");
const notFound = { 404: "no such schedule in this team (not_found)" };
const fieldErrors = "a field is invalid, details.parameter naming it: cron (not an expression, or it never fires), timezone (unknown), workflow (none of that name is deployed in this team), paused";

export const create = guarded(
  {
    summary: "Schedule a deployed workflow",
    description: `Runs the workflow named on a cron expression in a time zone, with \`input\`. ${POLICIES} Needs the team's Cloud features (403 cloud_disabled otherwise).`,
    requestBody: jsonRequestBody(T.Object({ workflow: T.String({ maxLength: 128 }), cron: CRON, timezone: T.Optional(ZONE), input: T.Optional(T.Any()), paused: T.Optional(T.Boolean()) })),
    responses: { 201: jsonResponse("The schedule", T.Object({ schedule: Schedule })), ...errorResponses("spec", { 400: fieldErrors, 403: "the team's Cloud features are off (cloud_disabled)" }) },
  },
  false,
);

export const list = guarded(
  {
    summary: "The team's schedules",
    parameters: [queryParameter("limit", T.Integer({ minimum: 1, maximum: 100 }), "default 50"), queryParameter("offset", T.Integer({ minimum: 0 }), "default 0")],
    responses: {
      200: jsonResponse("A page of schedules, oldest first", T.Object({ data: T.Array(Schedule), total: T.Integer(), limit: T.Integer(), offset: T.Integer() })),
      ...errorResponses("spec", { 400: "limit or offset invalid (details.parameter names it)" }),
    },
  },
  true,
);

export const get = guarded({ summary: "A schedule", parameters: [id], responses: { 200: jsonResponse("The schedule", T.Object({ schedule: Schedule })), ...errorResponses("spec", notFound) } }, true);

export const update = guarded(
  {
    summary: "Change, pause or resume a schedule",
    description:
      "Any of cron, timezone, input and paused. `paused: true` stops its firings; `paused: false` resumes it from now (the instants missed while paused do not fire). A changed cron or time zone counts its next firing from now.",
    parameters: [id],
    requestBody: jsonRequestBody(T.Object({ cron: T.Optional(CRON), timezone: T.Optional(ZONE), input: T.Optional(T.Any()), paused: T.Optional(T.Boolean()) })),
    responses: { 200: jsonResponse("The schedule changed", T.Object({ schedule: Schedule })), ...errorResponses("spec", { ...notFound, 400: fieldErrors }) },
  },
  false,
);

export const remove = guarded(
  {
    summary: "Delete a schedule",
    description: "No firing from now on; runs it started are kept.",
    parameters: [id],
    responses: { 200: jsonResponse("Deleted", T.Object({ schedule: Schedule, deleted: T.Literal(true) })), ...errorResponses("spec", notFound) },
  },
  false,
);
