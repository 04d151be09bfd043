// Parsers for the amounts operators type, shared by flags and the init wizard;
// a bad value is a UsageError naming where it came from.
import { UsageError } from "../args.ts";

/** A non-negative USD amount such as 5 or 2.50. */
export function usd(v: string, where: string): number {
  if (!/^\d+(\.\d+)?$/.test(v.trim())) throw new UsageError(`${where}: expected an amount in USD (e.g. 5 or 2.50), got ${JSON.stringify(v)}`);
  return Number(v);
}

export function portNumber(v: string, where: string): number {
  if (!/^\d+$/.test(v) || Number(v) > 65535) throw new UsageError(`${where}: expected a port number 0-65535, got ${JSON.stringify(v)}`);
  return Number(v);
}
