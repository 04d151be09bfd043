// Name resolution seam: the addresses a host name resolves to, as the system resolver (the one
// fetch uses) answers them. node:dns, which Node, Bun and Deno all provide.
import { lookup } from "node:dns/promises";

/** Every address `host` resolves to (an IP literal resolves to itself); rejects when it resolves to none. */
export async function resolveHost(host: string): Promise<string[]> {
  const found = await lookup(host, { all: true, verbatim: true });
  return found.map((a) => a.address);
}
