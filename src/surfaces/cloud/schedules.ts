// Workflow schedules over the hosted API (issue 39 item 5; docs/hosted-api.md "Schedules"): a team's
// deployed workflow run on a cron expression in a time zone, created (with the team's Cloud features
// only), listed, read, changed, paused and resumed (PATCH), and deleted. Managing takes a standard
// key, reading a read-only one too; another team's schedules are as unknown as missing ones. Firing
// is src/core/workflows/cloud/scheduler.ts.
import { Elysia } from "elysia";
import { CoreError } from "../../core/errors.ts";
import { requireCloud } from "../../core/workflows/cloud/enqueue.ts";
import { changeSchedule, newSchedule, scheduleView } from "../../core/workflows/cloud/schedules.ts";
import type { Relay } from "../../relay.ts";
import type { Schedule } from "../../store/schedules/types.ts";
import { json } from "../http.ts";
import * as docs from "../openapi/cloud-schedules.ts";
import { pageOf } from "./paging.ts";
import { CORE, READ, guarded, type HostedAuth, type HostedHandler } from "./auth.ts";
import { hostedText, jsonObjectOf } from "./errors.ts";
import { idempotent } from "./idempotency.ts";

const BODY_LIMIT = 256 * 1024;

async function teamSchedule(relay: Relay, auth: HostedAuth, id: string): Promise<Schedule> {
  const schedule = await relay.store.schedules.get(id);
  if (!schedule || schedule.team_id !== auth.team.id) throw new CoreError(404, "not_found", `no schedule ${id} in this team`);
  return schedule;
}

function handlers(relay: Relay): Record<"create" | "list" | "get" | "update" | "remove", HostedHandler> {
  const store = relay.store.schedules;
  return {
    create: async (request, auth) => {
      const raw = await hostedText(request, BODY_LIMIT);
      return idempotent(relay, auth.team.id, request, raw, async () => {
        const body = jsonObjectOf(raw);
        await requireCloud(relay.store.accounts, auth.team.id);
        const schedule = await newSchedule(relay.store.workflows, auth.team.id, body, relay.clock.now());
        await store.insert(schedule);
        return json({ schedule: scheduleView(schedule) }, 201);
      });
    },
    list: async (request, auth) => {
      const query = new URL(request.url).searchParams;
      const { limit, offset } = pageOf(query);
      const found = await store.list(auth.team.id, limit, offset);
      return json({ data: found.schedules.map(scheduleView), total: found.total, limit, offset });
    },
    get: async (_, auth, params) => json({ schedule: scheduleView(await teamSchedule(relay, auth, params.id!)) }),
    update: async (request, auth, params) => {
      const schedule = await teamSchedule(relay, auth, params.id!);
      const body = jsonObjectOf(await hostedText(request, BODY_LIMIT));
      return json({ schedule: scheduleView(await changeSchedule(store, schedule, body, relay.clock.now())) });
    },
    remove: async (_, auth, params) => {
      const schedule = await teamSchedule(relay, auth, params.id!);
      await store.delete(schedule.id);
      return json({ schedule: scheduleView(schedule), deleted: true });
    },
  };
}

export function scheduleRoutes(relay: Relay) {
  const h = handlers(relay);
  return new Elysia({ name: "cloud-schedules" })
    .post("/api/v1/schedules", guarded(relay, CORE, h.create), { parse: "none", detail: docs.create })
    .get("/api/v1/schedules", guarded(relay, READ, h.list), { detail: docs.list })
    .get("/api/v1/schedules/:id", guarded(relay, READ, h.get), { detail: docs.get })
    .patch("/api/v1/schedules/:id", guarded(relay, CORE, h.update), { parse: "none", detail: docs.update })
    .delete("/api/v1/schedules/:id", guarded(relay, CORE, h.remove), { detail: docs.remove });
}
