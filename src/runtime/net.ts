// Network seam: this machine's own interface addresses (node:os, which Node,
// Bun and Deno all provide), for the start-up check that a base URL does not
// point at Relay's own listener.
import { networkInterfaces } from "node:os";

/** This machine's interface addresses, lowercased. */
export function ownAddresses(): Set<string> {
  const found = new Set<string>();
  for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) found.add(a.address.toLowerCase());
  return found;
}
