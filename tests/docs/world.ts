/**
 * The docs suites' world: the dashboard world (fakes, a real Relay, real
 * traffic) served with the docs surface composed in after the surfaces of
 * `relay start`, which it documents.
 */
import type { AnyElysia } from "elysia";
import { docsSurface } from "../../src/surfaces/docs/index.ts";
import { surfacesFor } from "../../src/surfaces/index.ts";
import { startDashboardWorld, type DashboardWorld } from "../dashboard/world.ts";

export interface DocsWorld {
  url: string;
  /** Every surface served, the docs surface last. */
  surfaces: AnyElysia[];
  dashboard: DashboardWorld;
  stop(): Promise<void>;
}

export async function startDocsWorld(): Promise<DocsWorld> {
  const dashboard = await startDashboardWorld();
  const r = dashboard.relay.relay;
  // The surfaces `relay start` serves (the relay's own listener), for the route cross-check.
  const documented = surfacesFor(r, "start");
  return {
    url: dashboard.url,
    surfaces: [...documented, docsSurface(documented, r.log)],
    dashboard,
    stop: () => dashboard.stop(),
  };
}
