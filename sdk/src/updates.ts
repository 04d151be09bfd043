// Update checks (interface §9.4): checkForUpdates() asks the Relay cloud's POST
// /api/v1/version/check (src/surfaces/cloud/version.ts answers) whether a newer SDK is out. The
// automatic check runs once per process, at the first run, in the background: a run never waits
// for it and never fails by it (errors and a silent host are swallowed after a timeout). It is off
// with RELAY_NO_VERSION_CHECK, silent with RELAY_QUIET_VERSION_CHECK=true, and skipped when no
// cloud host is known (RELAY_API_HOST, or telemetry's apiEndpoint).
import { apiHost, platformEnv } from "./config.ts";
import { SDK_PACKAGE, SDK_VERSION } from "./version.ts";

const CHECK_TIMEOUT_MS = 3000;

export interface UpdateCheck {
  updateAvailable: boolean;
  current: string;
  latest: string;
  /** How far behind: `major`, `minor`, `patch`, … (the server's semantic-version distance), `none` when current. */
  urgency?: string;
}

export interface CheckOptions {
  /** The Relay cloud's address; RELAY_API_HOST (or telemetry's apiEndpoint) when absent. */
  apiHost?: string;
  /** ms before the check gives up; 3000 by default. */
  timeout?: number;
}

/** Rejects when no host is known, the host does not answer in time, or answers with an error. */
export async function checkForUpdates(options: CheckOptions = {}): Promise<UpdateCheck> {
  const host = options.apiHost ?? apiHost(platformEnv());
  if (!host) throw new Error("no Relay API host to ask: set RELAY_API_HOST or pass { apiHost }");
  const res = await fetch(`${host.replace(/\/+$/, "")}/api/v1/version/check`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ version: SDK_VERSION, component: "sdk" }),
    signal: AbortSignal.timeout(options.timeout ?? CHECK_TIMEOUT_MS),
  });
  const body = (await res.json()) as { update_available?: boolean; latest?: string; urgency?: string; error?: { message?: string } };
  if (!res.ok) throw new Error(`update check failed (${res.status}): ${body.error?.message ?? "no message"}`);
  return { updateAvailable: body.update_available === true, current: SDK_VERSION, latest: String(body.latest), urgency: body.urgency };
}

let started = false;

/** Starts the automatic check once per process, unless the environment turns it off. Returns at once. */
export function startAutomaticCheck(): void {
  const env = platformEnv();
  if (started || disabled(env.RELAY_NO_VERSION_CHECK)) return;
  started = true;
  const host = apiHost(env);
  if (!host) return;
  checkForUpdates({ apiHost: host }).then(
    (r) => {
      if (r.updateAvailable && env.RELAY_QUIET_VERSION_CHECK !== "true") console.warn(`${SDK_PACKAGE} ${r.latest} is available (you have ${r.current}); set RELAY_QUIET_VERSION_CHECK=true to hide this`);
    },
    () => {},
  );
}

/** Set to anything but "", "0" or "false". */
const disabled = (value: string | undefined): boolean => value !== undefined && !["", "0", "false"].includes(value.toLowerCase());
