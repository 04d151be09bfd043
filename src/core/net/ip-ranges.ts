// Which IP addresses an outbound call made on a user's behalf (an A2A card by URL, a webhook) must
// not reach: anything but the public internet. IANA's special-purpose registries (RFC 6890 and its
// updates) name the ranges; an address that does not parse counts as not public (fail closed).

interface Range {
  prefix: Uint8Array;
  bits: number;
  what: string;
  /** The range carries an IPv4 address at this byte offset: judged by that address instead. */
  embedsV4At?: number;
}

/** Four dotted decimal octets, as the resolver and the URL parser write them. */
function parseV4(s: string): Uint8Array | undefined {
  const parts = s.split(".");
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return undefined;
  return Uint8Array.from(parts, Number);
}

/** Hex groups with at most one `::`, a dotted IPv4 tail allowed, a zone (`%eth0`) ignored. */
function parseV6(s: string): Uint8Array | undefined {
  const halves = s.replace(/%.*$/, "").split("::");
  if (halves.length > 2) return undefined;
  const head = words(halves[0]!, halves.length === 1);
  const tail = halves.length === 2 ? words(halves[1]!, true) : [];
  if (!head || !tail) return undefined;
  const zeros = 8 - head.length - tail.length;
  if (halves.length === 1 ? zeros !== 0 : zeros < 1) return undefined;
  const out = new Uint8Array(16);
  [...head, ...new Array<number>(zeros).fill(0), ...tail].forEach((w, i) => ((out[2 * i] = w >> 8), (out[2 * i + 1] = w & 0xff)));
  return out;
}

function words(part: string, v4Last: boolean): number[] | undefined {
  if (part === "") return [];
  const out: number[] = [];
  const groups = part.split(":");
  for (const [i, g] of groups.entries()) {
    const v4 = v4Last && i === groups.length - 1 && g.includes(".") ? parseV4(g) : undefined;
    if (v4) out.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!);
    else if (/^[0-9a-f]{1,4}$/i.test(g)) out.push(parseInt(g, 16));
    else return undefined;
  }
  return out;
}

/** An IPv4 or IPv6 address as 4 or 16 bytes; IPv6 may come in brackets, as URL hostnames write it. */
export function parseIp(address: string): Uint8Array | undefined {
  const s = address.replace(/^\[(.*)\]$/, "$1");
  return s.includes(":") ? parseV6(s) : parseV4(s);
}

function range(cidr: string, what: string, embedsV4At?: number): Range {
  const [ip, bits] = cidr.split("/");
  return { prefix: parseIp(ip!)!, bits: Number(bits), what, embedsV4At };
}

const V4: Range[] = [
  range("0.0.0.0/8", "unspecified"),
  range("10.0.0.0/8", "private"),
  range("100.64.0.0/10", "carrier-grade NAT"),
  range("127.0.0.0/8", "loopback"),
  range("169.254.0.0/16", "link-local"), // cloud metadata services live here (169.254.169.254)
  range("172.16.0.0/12", "private"),
  range("192.0.0.0/24", "IETF protocol assignment"),
  range("192.0.2.0/24", "documentation"),
  range("192.88.99.0/24", "6to4 relay"),
  range("192.168.0.0/16", "private"),
  range("198.18.0.0/15", "benchmarking"),
  range("198.51.100.0/24", "documentation"),
  range("203.0.113.0/24", "documentation"),
  range("224.0.0.0/4", "multicast"),
  range("240.0.0.0/4", "reserved or broadcast"),
];

// Most specific first: the first range that holds an address names it.
const V6: Range[] = [
  range("::/128", "unspecified"),
  range("::1/128", "loopback"),
  range("::ffff:0:0/96", "IPv4-mapped form", 12),
  range("::ffff:0:0:0/96", "IPv4-translated form", 12),
  range("::/96", "IPv4-compatible (deprecated)"),
  range("64:ff9b:1::/48", "local NAT64"),
  range("64:ff9b::/96", "NAT64 form", 12),
  range("100::/64", "discard-only"),
  range("2001:db8::/32", "documentation"),
  range("2001::/32", "Teredo tunnel"), // the IPv4 inside is obfuscated: refuse the range whole
  range("2002::/16", "6to4 form", 2),
  range("fc00::/7", "private (unique local)"),
  range("fe80::/10", "link-local"),
  range("fec0::/10", "site-local (deprecated)"),
  range("ff00::/8", "multicast"),
];

function within(bytes: Uint8Array, r: Range): boolean {
  if (bytes.length !== r.prefix.length) return false;
  const full = r.bits >> 3;
  for (let i = 0; i < full; i++) if (bytes[i] !== r.prefix[i]) return false;
  const rest = r.bits & 7;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return (bytes[full]! & mask) === (r.prefix[full]! & mask);
}

function reasonOf(bytes: Uint8Array): string | undefined {
  const r = (bytes.length === 4 ? V4 : V6).find((candidate) => within(bytes, candidate));
  if (!r || r.embedsV4At === undefined) return r?.what;
  const inner = reasonOf(bytes.subarray(r.embedsV4At, r.embedsV4At + 4));
  return inner && `${r.what} of a ${inner}`;
}

/** Why `address` is not a public unicast address (e.g. "loopback"); undefined when it is one. */
export function nonPublicReason(address: string): string | undefined {
  const bytes = parseIp(address);
  return bytes ? reasonOf(bytes) : "unparsable";
}
