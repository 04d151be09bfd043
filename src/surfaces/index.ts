// Which surfaces each command serves; used by the CLI and by tests alike.
// The docs surface documents exactly the surfaces served beside it.
import type { Relay } from "../relay.ts";
import { createApp } from "./app.ts";
import { cloudSurface } from "./cloud/index.ts";
import { controlSurface } from "./control/index.ts";
import { dashboardSurface } from "./dashboard/index.ts";
import { docsSurface } from "./docs/index.ts";
import { proxyFallback, proxyFastPath, proxySurface } from "./proxy/index.ts";
import { telemetrySurface } from "./telemetry/index.ts";

export function surfacesFor(relay: Relay, command: "start" | "cloud") {
  return command === "cloud"
    ? [cloudSurface(relay)]
    : [proxySurface(relay), controlSurface(relay), telemetrySurface(relay), dashboardSurface(relay)];
}

export function buildFetch(relay: Relay, command: "start" | "cloud") {
  const corsOrigins = () => relay.config().server.corsOrigins;
  const surfaces = surfacesFor(relay, command);
  return createApp([...surfaces, docsSurface(surfaces, relay.log)], {
    log: relay.log,
    fallback: command === "start" ? proxyFallback(relay) : undefined,
    fastPath: command === "start" ? proxyFastPath(relay) : undefined,
    corsOrigins,
  });
}
