// What all vendor streams of this process hold in memory together: their
// unfinished events and the vendor bytes their clients have not had yet
// (src/core/router/bounded-parser.ts). Each stream charges what it comes to
// hold and gives it back as it passes bytes on or ends; one cap bounds the sum,
// so that many streams with large events at once cannot take the process's
// memory, where each stream's own caps alone would multiply by their number.
import { collectGarbage } from "../../runtime/gc.ts";

let held = 0;

/**
 * Memory given back in one piece at least this large is collected at once: the engine collects
 * only after more allocation, by which time other streams may have charged the same bytes again,
 * so that RSS would pass the cap (10 streams of 50 MB events under a 256 MB cap: 480 MB over idle
 * without, 296 MB with; tests/security/attacks/streams.ts). Ordinary events are far smaller.
 */
const COLLECT_AFTER_BYTES = 16 * 1024 * 1024;

/**
 * Add `delta` to what streams hold. A growth that would take the total past `cap` is refused,
 * charges nothing, and returns false: the stream asking must end.
 */
export function chargeHeld(delta: number, cap: number): boolean {
  if (delta > 0 && held + delta > cap) return false;
  held += delta;
  return true;
}

/** A stream gives back what it held (it ended, or dropped it). */
export function releaseHeld(bytes: number): void {
  held -= bytes;
  if (bytes >= COLLECT_AFTER_BYTES) collectGarbage();
}

/** What all streams hold now, in characters and bytes as they charged them. */
export function heldNow(): number {
  return held;
}
