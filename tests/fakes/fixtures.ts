/** Recorded vendor responses (see vendor-recordings/README.md) as raw replies. */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type { Reply } from "./types.ts";

/**
 * The vendor recordings: in `shared/` beside the checkout, as the project is laid out, unless
 * RELAY_RECORDINGS_DIR points elsewhere. Every test that replays them imports this path, so a
 * missing folder fails those files with one message saying why, not each test with ENOENT.
 */
export const RECORDINGS_DIR = process.env.RELAY_RECORDINGS_DIR
  ? path.resolve(process.env.RELAY_RECORDINGS_DIR)
  : path.resolve(import.meta.dir, "../../../shared/fixtures/vendor-recordings");
if (!existsSync(RECORDINGS_DIR)) {
  throw new Error(
    `vendor recordings not found at ${RECORDINGS_DIR}: clone the project next to shared/ (README, Quick start) or set RELAY_RECORDINGS_DIR`,
  );
}

/** `.json` → the whole body; `.chunks.txt` → one stream payload per non-empty line. */
export function recordingReply(file: string): Reply {
  const text = readFileSync(path.join(RECORDINGS_DIR, file), "utf8");
  if (file.endsWith(".chunks.txt")) return { raw: { chunks: text.split("\n").filter((line) => line.trim() !== "") } };
  if (file.endsWith(".json")) return { raw: { body: text } };
  throw new Error(`not a recording (expected .json or .chunks.txt): ${file}`);
}
