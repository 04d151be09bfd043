// Which surfaces each command serves; used by the CLI and by tests alike.
import type { Relay } from "../relay.ts";
import { createApp } from "./app.ts";
import { cloudSurface } from "./cloud/index.ts";
import { controlSurface } from "./control/index.ts";
import { dashboardSurface } from "./dashboard/index.ts";
import { proxyFallback, proxySurface } from "./proxy/index.ts";
import { telemetrySurface } from "./telemetry/index.ts";

export function buildFetch(relay: Relay, command: "start" | "cloud") {
  const corsOrigins = () => relay.config().server.corsOrigins;
  if (command === "cloud") return createApp([cloudSurface(relay)], { log: relay.log, corsOrigins });
  return createApp([proxySurface(relay), controlSurface(relay), telemetrySurface(relay), dashboardSurface(relay)], { log: relay.log, fallback: proxyFallback(relay), corsOrigins });
}
