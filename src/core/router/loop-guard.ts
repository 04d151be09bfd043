// Loops: Relay marks every vendor call it makes with its install id in the
// `x-relay-via` list (the marks the request came in with, then its own), so a
// request that arrives carrying its own mark has come back around — a base URL
// pointing at Relay itself, typically ANTHROPIC_BASE_URL exported for Claude
// Code and inherited by Relay. It is refused with 508 before any vendor call.
// Relays chained on purpose have different ids and pass.
import type { Config } from "../../config/schema.ts";
import type { ProviderPlugin, WireFormat } from "../../plugin/api.ts";
import { CoreError } from "../errors.ts";
import { isLoopback } from "../net/loopback.ts";
import { type BaseUrlSource, baseUrlSource, relayBaseUrlEnv } from "./credentials.ts";
import { ownAddresses } from "../../runtime/net.ts";

type Env = Record<string, string | undefined>;

export const VIA_HEADER = "x-relay-via";
/** On a 508: the mark found, so that the Relay whose call it answers can tell its own loop from another Relay's. */
const LOOP_HEADER = "x-relay-loop";
/** No deliberate chain of Relays comes near this; a longer list is a loop through Relays of other installs. */
const MAX_VIA_CHARS = 1024;

export class LoopGuard {
  /** This install's mark in the list. */
  readonly mark: string;

  constructor(installId: string) {
    this.mark = `relay-${installId}`;
  }

  /** The `x-relay-via` value of a vendor call made for a request with these headers. */
  outgoing(incoming: Headers): string {
    const prior = incoming.get(VIA_HEADER);
    return prior ? `${prior}, ${this.mark}` : this.mark;
  }

  /** Whether a request has already passed through this Relay (one header lookup: on every model request). */
  looped(incoming: Headers): boolean {
    const via = incoming.get(VIA_HEADER);
    return via !== null && (via.length > MAX_VIA_CHARS || hasMark(via, this.mark));
  }

  /** The 508 for a looped request (see loopMessage), marked so that the call it answers knows its own loop. */
  refuse(requestUrl: string | undefined, format: WireFormat, providers: Iterable<ProviderPlugin>, config: Config, env: Env): CoreError {
    return new CoreError(508, "loop_detected", loopMessage(requestUrl, format, providers, config, env), { headers: { [LOOP_HEADER]: this.mark } });
  }

  /** Whether a vendor's answer is this Relay refusing its own call: the client gets that 508 as it is, not as a provider error. */
  cameBack(answer: Headers): boolean {
    return answer.get(LOOP_HEADER) === this.mark;
  }
}

/** An exact entry of the comma-separated list, not a substring of a longer id. */
function hasMark(via: string, mark: string): boolean {
  for (let at = via.indexOf(mark); at !== -1; at = via.indexOf(mark, at + 1)) {
    const before = at === 0 ? "," : via[at - 1]!;
    const after = via[at + mark.length] ?? ",";
    if ((before === "," || before === " ") && (after === "," || after === " ")) return true;
  }
  return false;
}

export interface Listen {
  host: string;
  port: number;
}

/**
 * Names each setting that sends this route's wire format to the address the request came to (the
 * looping call's Host is that base URL's), and how to point it at the vendor instead.
 */
function loopMessage(requestUrl: string | undefined, format: WireFormat, providers: Iterable<ProviderPlugin>, config: Config, env: Env): string {
  const host = hostOf(requestUrl);
  const found: string[] = [];
  for (const p of providers) {
    if (p.format !== format) continue;
    const source = baseUrlSource(p, config, env);
    if (host !== undefined && source.from !== "default" && hostOf(source.url) === host) found.push(pointsBack(p, source));
  }
  if (found.length) return found.join("; ");
  return "This request has already passed through this Relay: a vendor base URL leads back to it; check RELAY_<PROVIDER>_BASE_URL, the vendor's own <VENDOR>_BASE_URL and providers.<name>.baseUrl";
}

/** "ANTHROPIC_BASE_URL points back at this Relay (http://127.0.0.1:4100); unset it …" */
export function pointsBack(p: ProviderPlugin, source: BaseUrlSource): string {
  const relayName = relayBaseUrlEnv(p);
  const fix =
    source.from === relayName
      ? `set ${relayName} to the vendor's address`
      : source.from.startsWith("providers.")
        ? `set ${source.from} in the config file to the vendor's address`
        : `unset it in Relay's environment or set ${relayName} to the vendor's address`;
  return `${source.from} points back at this Relay (${originOf(source.url)}); ${fix}`;
}

/** Providers whose configured base URL is Relay's own listen address (every call to them would loop), with what to change. */
export function selfPointing(providers: Iterable<ProviderPlugin>, config: Config, env: Env, listen: Listen): Array<{ provider: string; message: string }> {
  const found: Array<{ provider: string; message: string }> = [];
  for (const p of providers) {
    const source = baseUrlSource(p, config, env);
    if (source.from !== "default" && reachesListener(source.url, listen)) found.push({ provider: p.name, message: pointsBack(p, source) });
  }
  return found;
}

/** Whether a URL lands on this listener: same port, and the same host, loopback for loopback, or an own address for a wildcard listener. */
export function reachesListener(url: string, listen: Listen): boolean {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  const port = u.port ? Number(u.port) : u.protocol === "https:" ? 443 : 80;
  if (port !== listen.port) return false;
  const host = bare(u.hostname);
  const listenHost = bare(listen.host.trim().toLowerCase());
  if (host === listenHost) return true;
  const wildcard = listenHost === "0.0.0.0" || listenHost === "::" || listenHost === "";
  if (isLoopback(host)) return wildcard || isLoopback(listenHost);
  return wildcard && ownAddresses().has(host);
}

const bare = (host: string): string => (host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host);

function hostOf(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  try {
    return new URL(url).host;
  } catch {
    return undefined;
  }
}

/** A base URL as shown in a message: its origin only (no userinfo, path or query). */
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return "(unparsable URL)";
  }
}
