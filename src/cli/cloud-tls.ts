// `relay cloud` off loopback: every request carries a team's API key, so the hosted API serves HTTPS
// itself (cloud.tls) or is told it sits behind a TLS-terminating proxy (cloud.behindProxy); otherwise
// it refuses to start. The certificate and key are read here, at start-up, so a missing or unreadable
// file is one clear line, not a stack trace from the listener.
import type { Config } from "../config/schema.ts";
import { isLoopback } from "../core/net/loopback.ts";
import { readTextFile } from "../runtime/fs.ts";
import type { TlsFiles } from "../runtime/serve.ts";
import { UsageError } from "./args.ts";

/** The PEM texts to serve HTTPS with; undefined for plain HTTP, which only loopback or a proxy in front may use. */
export function cloudTls(cloud: Config["cloud"]): TlsFiles | undefined {
  if (cloud.tls) return { cert: pem(cloud.tls.cert, "cloud.tls.cert", "CERTIFICATE"), key: pem(cloud.tls.key, "cloud.tls.key", "PRIVATE KEY") };
  if (isLoopback(cloud.host) || cloud.behindProxy) return undefined;
  throw new UsageError(
    `refusing to serve the hosted API on ${cloud.host} over plain HTTP: API keys would cross the network in clear text; set cloud.tls.cert and cloud.tls.key (env RELAY_CLOUD_TLS_CERT, RELAY_CLOUD_TLS_KEY) to serve HTTPS, or cloud.behindProxy: true when a TLS-terminating proxy (Caddy, nginx) is in front, or listen on 127.0.0.1`,
  );
}

function pem(path: string, setting: string, label: string): string {
  let text: string | undefined;
  try {
    text = readTextFile(path);
  } catch (e) {
    throw new UsageError(`cannot read ${setting} ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  if (text === undefined) throw new UsageError(`cannot read ${setting} ${path}: no such file`);
  if (!new RegExp(`-----BEGIN [A-Z ]*${label}-----`).test(text)) throw new UsageError(`${setting} ${path} holds no PEM ${label.toLowerCase()} (-----BEGIN …${label}-----)`);
  return text;
}
