// Starts a real Relay (real HTTP listener, real SQLite store) in this process,
// configured through the same loader the binary uses.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config/load.ts";
import type { Clock } from "../../src/core/limits/clock.ts";
import { createLogger } from "../../src/core/log.ts";
import { Relay } from "../../src/relay.ts";
import { listen, type Listener } from "../../src/runtime/serve.ts";
import { buildFetch } from "../../src/surfaces/index.ts";
import { installToken, installTokenFile } from "../../src/surfaces/install-token.ts";

export interface TestRelay {
  url: string;
  relay: Relay;
  listener: Listener;
  home: string;
  logs: string[];
  /** The admin token in effect (configured, else this home's own) and the headers that send it. */
  adminToken: string;
  admin: { authorization: string };
  /** `admin` plus a JSON content type, for admin POSTs. */
  adminJson: { authorization: string; "content-type": string };
  stop(): Promise<void>;
}

export interface StartRelayOptions {
  env?: Record<string, string>;
  config?: Record<string, unknown>;
  clock?: Clock;
  /**
   * Reuse this RELAY_HOME (a restart): its config.json is kept when present, and
   * stop() leaves the folder to the caller, who created it.
   */
  home?: string;
}

export async function startRelay(opts: StartRelayOptions = {}): Promise<TestRelay> {
  const home = opts.home ?? mkdtempSync(join(tmpdir(), "relay-test-"));
  const file = join(home, "config.json");
  if (!opts.home || !existsSync(file)) writeFileSync(file, JSON.stringify({ pluginsDirs: [join(home, "plugins")], ...opts.config }));
  const env = { RELAY_HOME: home, ...opts.env };
  const loaded = loadConfig({ file, env });
  const logs: string[] = [];
  const log = createLogger("debug", (l) => logs.push(l));
  const relay = await Relay.create({ loaded, env, log, clock: opts.clock });
  const fetch = buildFetch(relay, "start");
  const listener = listen({ hostname: "127.0.0.1", port: 0, fetch, maxRequestBodySize: loaded.config.server.bodyLimitBytes * 4, idleTimeoutSec: 60 });
  const adminToken = loaded.config.adminToken ?? installToken(installTokenFile(env));
  const admin = { authorization: `Bearer ${adminToken}` };
  return {
    url: listener.url,
    relay,
    listener,
    home,
    logs,
    adminToken,
    admin,
    adminJson: { ...admin, "content-type": "application/json" },
    async stop() {
      await listener.stop(1000);
      await relay.close();
      if (!opts.home) rmSync(home, { recursive: true, force: true });
    },
  };
}
