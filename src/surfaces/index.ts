// Which surfaces each command serves; used by the CLI and by tests alike.
// The docs surface documents exactly the surfaces served beside it.
import type { Relay } from "../relay.ts";
import { createApp } from "./app.ts";
import { browserGuard, type ListenerAddress } from "./browser-guard.ts";
import { cloudSurface } from "./cloud/index.ts";
import { unknownRoute } from "./cloud/errors.ts";
import { controlSurface } from "./control/index.ts";
import { meshSurface } from "./control/mesh.ts";
import { dashboardSurface } from "./dashboard/index.ts";
import { docsSurface } from "./docs/index.ts";
import { installToken, installTokenFile } from "./install-token.ts";
import { proxyFallback, proxyFastPath, proxySurface } from "./proxy/index.ts";
import { telemetrySurface } from "./telemetry/index.ts";

export function surfacesFor(relay: Relay, command: "start" | "cloud") {
  return command === "cloud"
    ? [cloudSurface(relay)]
    : [proxySurface(relay), controlSurface(relay), telemetrySurface(relay), meshSurface(relay), dashboardSurface(relay)];
}

/**
 * The app of one listener. Called by the listener (runtime/serve.ts), its fetch
 * gets the socket's real address; called directly, it assumes the configured one.
 */
export function buildFetch(relay: Relay, command: "start" | "cloud") {
  const server = () => relay.config().server;
  const surfaces = surfacesFor(relay, command);
  let token: string | undefined;
  let configured: { host: string; port: number } | undefined;
  let address: ListenerAddress = { hostname: "", port: 0 };
  return createApp([...surfaces, docsSurface(surfaces, relay.log)], {
    log: relay.log,
    fallback: command === "start" ? proxyFallback(relay) : unknownRoute,
    fastPath: command === "start" ? proxyFastPath(relay) : undefined,
    corsOrigins: () => server().corsOrigins,
    // Both listeners take only JSON bodies, and judge browsers by the same settings.
    guard: browserGuard(server, true),
    listener: () => {
      const c = command === "cloud" ? relay.config().cloud : server();
      if (c !== configured) (configured = c), (address = { hostname: c.host, port: c.port });
      return address;
    },
    installToken: () => (token ??= installToken(installTokenFile(relay.env))),
  });
}
