// HTTP client for a running Relay: the configured host and port, and the
// admin token on every call (env RELAY_ADMIN_TOKEN or the config file, else
// this install's own in $RELAY_HOME/admin-token, as the server uses it).
import type { Config } from "../../config/schema.ts";
import { installToken, installTokenFile } from "../../surfaces/install-token.ts";

/** The server did not answer, or answered with an error; the message is for the operator. */
export class ServerError extends Error {
  override name = "ServerError";
}

/** A wildcard listen address is reached through loopback. */
function connectHost(host: string): string {
  if (host === "0.0.0.0" || host === "") return "127.0.0.1";
  if (host === "::" || host === "[::]") return "[::1]";
  return host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
}

export function serverUrl(config: Config): string {
  return `http://${connectHost(config.server.host)}:${config.server.port}`;
}

/** The admin token a server started with this config and environment uses. */
export function adminToken(config: Config, env: Record<string, string | undefined>): string {
  return config.adminToken ?? installToken(installTokenFile(env));
}

export class RelayClient {
  readonly url: string;
  private token: string | undefined;

  constructor(
    private readonly config: Config,
    private readonly env: Record<string, string | undefined>,
    private readonly timeoutMs = 5_000,
  ) {
    this.url = serverUrl(config);
  }

  get<T>(path: string): Promise<T> {
    return this.call<T>("GET", path);
  }

  post<T>(path: string, body: unknown): Promise<T> {
    return this.call<T>("POST", path, body);
  }

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = {};
    // Not on /health: `relay status` asks it first, and a stopped server needs no token file.
    if (path !== "/health") headers.authorization = `Bearer ${(this.token ??= adminToken(this.config, this.env))}`;
    if (body !== undefined) headers["content-type"] = "application/json";
    let res: Response;
    try {
      res = await fetch(`${this.url}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch {
      throw new ServerError(`no Relay is answering at ${this.url} (start it with 'relay start', or pass --host/--port)`);
    }
    const text = await res.text();
    if (!res.ok) throw new ServerError(`${method} ${path} failed with HTTP ${res.status}: ${errorMessage(text)}`);
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new ServerError(`${method} ${path}: the server at ${this.url} did not answer JSON; is it Relay?`);
    }
  }
}

function errorMessage(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: { message?: string } | string; message?: string };
    const message = typeof body.error === "string" ? body.error : (body.error?.message ?? body.message);
    if (message) return message;
  } catch {
    // not JSON: show the start of the body
  }
  return text.slice(0, 200) || "(empty body)";
}
