// Outbound calls Relay makes on a user's behalf (an A2A Agent Card by URL, a webhook delivery) go to
// a URL the user chose, so they must not reach Relay's own network (SSRF): the instance itself, the
// private network behind it, a cloud's metadata service. assertPublicUrl refuses a URL whose host
// resolves to any non-public address (src/core/net/ip-ranges.ts); fetchPublic calls it, follows no
// redirect and bounds the call in time and size. `cloud.allowPrivateNetworks` lifts the address check
// (a self-hosted Relay whose agents live on its own network; tests).
//
// What remains (DNS rebinding): the name is resolved here and again by fetch, so a name whose records
// change between the two (a short TTL, an attacker's DNS server) can pass the check with a public
// address and then connect to a private one. fetch offers no way to pin the checked address. Where
// that matters, deny the Relay process egress to private ranges at the network level too (firewall,
// security group, or an egress proxy that applies the same rule).
import { resolveHost } from "../../runtime/dns.ts";
import { CoreError } from "../errors.ts";
import { readCapped } from "../read-capped.ts";
import { nonPublicReason } from "./ip-ranges.ts";

export interface PublicUrlOptions {
  /** true skips the address check (cloud.allowPrivateNetworks); scheme and credentials are still checked. */
  allowPrivate: boolean;
  /** The request field the URL came from, named in details.parameter. */
  parameter: string;
}

export interface FetchPublicOptions extends PublicUrlOptions {
  timeoutMs: number;
  /** Largest answer body read, in bytes. */
  maxBytes: number;
}

export interface PublicResponse {
  status: number;
  headers: Headers;
  text: string;
}

// details.expected is a type name (spec §2.6): the URL is a string; the message says what is wrong with it.
const EXPECTED = "string";

/** A URL Relay will not call: bad scheme, credentials, a non-public address, a redirect (400 unsafe_url). */
const unsafe = (parameter: string, message: string) =>
  new CoreError(400, "unsafe_url", `${parameter} ${message}`, { details: { parameter, expected: EXPECTED } });

/** A URL Relay tried and could not get an answer from (400 url_unreachable). */
const unreachable = (parameter: string, message: string) =>
  new CoreError(400, "url_unreachable", `${parameter} ${message}`, { details: { parameter, expected: EXPECTED } });

/**
 * The URL, parsed, when Relay may call it: http or https, no user:password@, and (unless allowPrivate)
 * every address its host resolves to public. Decimal, octal and hex IPv4 forms reach here already
 * normalised by the URL parser (http://2130706433/ is 127.0.0.1). The address itself is not echoed.
 */
export async function assertPublicUrl(url: string, opts: PublicUrlOptions): Promise<URL> {
  const { parameter } = opts;
  const parsed = URL.canParse(url) ? new URL(url) : undefined;
  if (parsed?.protocol !== "http:" && parsed?.protocol !== "https:") throw unsafe(parameter, "must be an absolute http or https URL");
  if (parsed.username !== "" || parsed.password !== "") throw unsafe(parameter, "must not carry credentials (user:password@)");
  if (opts.allowPrivate) return parsed;
  let addresses: string[];
  try {
    addresses = await resolveHost(parsed.hostname.replace(/^\[(.*)\]$/, "$1"));
  } catch {
    throw unreachable(parameter, `names a host that does not resolve (${parsed.hostname})`);
  }
  for (const address of addresses) {
    const why = nonPublicReason(address);
    if (why) throw unsafe(parameter, `resolves to a non-public address (${why}); Relay calls public addresses only`);
  }
  return parsed;
}

/**
 * Calls a URL that passed assertPublicUrl and reads its answer as text. A redirect is refused, not
 * followed: its target would need the same check, and a webhook's POST must not turn into a GET
 * elsewhere; the user gives the final URL. The timeout covers the headers and the body.
 */
export async function fetchPublic(url: string, init: RequestInit, opts: FetchPublicOptions): Promise<PublicResponse> {
  const target = await assertPublicUrl(url, opts);
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), opts.timeoutMs);
  try {
    const res = await fetch(target, { ...init, redirect: "manual", signal: ac.signal });
    if (res.status >= 300 && res.status < 400 && res.headers.has("location")) {
      void res.body?.cancel().catch(() => {});
      throw unsafe(opts.parameter, `answered a redirect (${res.status}), which Relay does not follow: give the final URL`);
    }
    const tooLarge = () => new CoreError(400, "response_too_large", `${opts.parameter} answered more than ${opts.maxBytes} bytes`, { details: { parameter: opts.parameter, expected: EXPECTED } });
    const text = await readCapped(res, opts.maxBytes, tooLarge);
    return { status: res.status, headers: res.headers, text };
  } catch (e) {
    if (e instanceof CoreError) throw e;
    throw unreachable(opts.parameter, ac.signal.aborted ? `did not answer within ${opts.timeoutMs} ms` : "could not be reached");
  } finally {
    clearTimeout(timer);
  }
}
