// Runs a listener until SIGTERM/SIGINT, then shuts down gracefully: stop
// accepting, let in-flight requests finish (bounded), flush the run log,
// close the store, exit 0.
import type { LoadedConfig } from "../config/load.ts";
import { redact } from "../config/redact.ts";
import type { Logger } from "../core/log.ts";
import { selfPointing } from "../core/router/loop-guard.ts";
import { Relay } from "../relay.ts";
import { listen } from "../runtime/serve.ts";
import { buildFetch } from "../surfaces/index.ts";
import { installToken, installTokenFile } from "../surfaces/install-token.ts";
import { isLoopback } from "../core/net/loopback.ts";
import { VERSION } from "../version.ts";
import { UsageError } from "./args.ts";
import { cloudTls } from "./cloud-tls.ts";
import { providerLines, providersFound } from "./startup-providers.ts";

/** `say` prints the human-readable start-up lines (stderr: stdout carries the JSON log). */
export async function serve(
  command: "start" | "cloud",
  loaded: LoadedConfig,
  env: Record<string, string | undefined>,
  log: Logger,
  say: (text: string) => void,
): Promise<number> {
  const c = loaded.config;
  const { host, port } = command === "start" ? c.server : c.cloud;
  if (!isLoopback(host) && !c.adminToken) {
    throw new UsageError(
      `refusing to listen on ${host}: administrative routes would be open to the network; set RELAY_ADMIN_TOKEN (16+ characters) or listen on 127.0.0.1`,
    );
  }
  const tls = command === "cloud" ? cloudTls(c.cloud) : undefined;
  // Created now, not on the first admin request: a home Relay cannot write is reported at start.
  let adminToken = "configured";
  if (!c.adminToken) {
    const file = installTokenFile(env);
    try {
      installToken(file);
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
    adminToken = `${file} (run 'relay dashboard' for a signed-in link)`;
  }
  const relay = await Relay.create({ loaded, env, log });
  const fetch = buildFetch(relay, command);
  relay.watch();
  let listener;
  try {
    listener = listen({
      hostname: host,
      port,
      tls,
      fetch,
      // Relay enforces its own body limit (with the spec's error); this is only a backstop.
      maxRequestBodySize: c.server.bodyLimitBytes * 4,
      idleTimeoutSec: 60,
    });
  } catch (e) {
    await relay.close();
    const files = tls ? " (serving HTTPS with cloud.tls.cert and cloud.tls.key)" : "";
    throw new UsageError(`cannot listen on ${host}:${port}${files}: ${(e as Error).message}`);
  }
  log.info("relay listening", {
    command,
    url: listener.url,
    version: VERSION,
    store: relay.store.driver,
    adminToken,
    config: loaded.fileExists ? loaded.file : `${loaded.file} (not present; defaults)`,
    plugins: relay.plugins.loaded.map((p) => `${p.plugin.kind}:${p.plugin.name}`),
    pluginFailures: relay.plugins.failed.length,
  });
  const found = providersFound(relay.registry.providers.values(), c, env);
  say(providerLines(found));
  log.info("providers", { providers: found });
  if (!env.BUN_CONFIG_MAX_HTTP_REQUESTS) {
    log.warn("BUN_CONFIG_MAX_HTTP_REQUESTS is not set: at most 256 vendor requests run at once, the rest queue; set it (e.g. 4096) before starting Relay");
  }
  for (const { message } of selfPointing(relay.registry.providers.values(), c, env, { host, port: listener.port })) {
    log.warn(`${message}: each call to this provider would come back to Relay and be refused (508 Loop Detected)`);
  }
  // Build the catalog while idle, shortly after start, rather than on the first request.
  setTimeout(() => relay.warmUp(), 250).unref();
  log.debug("effective config", redact(c) as unknown as Record<string, unknown>);

  const stopped = Promise.withResolvers<number>();
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info("shutting down", { signal, inFlight: listener.inFlight() });
    const { forced } = await listener.stop(c.server.shutdownGraceMs);
    await relay.close();
    log.info("stopped", { forcedConnections: forced });
    stopped.resolve(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
  return stopped.promise;
}
