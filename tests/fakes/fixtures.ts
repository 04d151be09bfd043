/** Recorded vendor responses (see vendor-recordings/README.md) as raw replies. */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type { Reply } from "./types.ts";

const DEFAULT_DIR = path.resolve(import.meta.dir, "../fixtures/vendor-recordings");
let checked: string | undefined;

/**
 * The vendor recordings: in tests/fixtures/vendor-recordings (Apache-2.0, attributed in its
 * README), unless RELAY_RECORDINGS_DIR points elsewhere. Every test that replays them asks here, so a missing
 * folder fails those files with one message saying why, not each test with ENOENT; code that
 * only imports this module (the fake vendors the benches start) does not need the folder.
 */
export function recordingsDir(): string {
  if (checked) return checked;
  const dir = process.env.RELAY_RECORDINGS_DIR ? path.resolve(process.env.RELAY_RECORDINGS_DIR) : DEFAULT_DIR;
  if (!existsSync(dir)) {
    throw new Error(`vendor recordings not found at ${dir}: they ship in the repository under tests/fixtures/vendor-recordings; set RELAY_RECORDINGS_DIR to use others`);
  }
  return (checked = dir);
}

/** `.json` → the whole body; `.chunks.txt` → one stream payload per non-empty line. */
export function recordingReply(file: string): Reply {
  const text = readFileSync(path.join(recordingsDir(), file), "utf8");
  if (file.endsWith(".chunks.txt")) return { raw: { chunks: text.split("\n").filter((line) => line.trim() !== "") } };
  if (file.endsWith(".json")) return { raw: { body: text } };
  throw new Error(`not a recording (expected .json or .chunks.txt): ${file}`);
}
