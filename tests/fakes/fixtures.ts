/** Recorded vendor responses (see vendor-recordings/README.md) as raw replies. */
import { readFileSync } from "node:fs";
import path from "node:path";
import type { Reply } from "./types.ts";

/** /work/main's parent holds `shared/`. */
export const RECORDINGS_DIR = path.resolve(import.meta.dir, "../../../shared/fixtures/vendor-recordings");

/** `.json` → the whole body; `.chunks.txt` → one stream payload per non-empty line. */
export function recordingReply(file: string): Reply {
  const text = readFileSync(path.join(RECORDINGS_DIR, file), "utf8");
  if (file.endsWith(".chunks.txt")) return { raw: { chunks: text.split("\n").filter((line) => line.trim() !== "") } };
  if (file.endsWith(".json")) return { raw: { body: text } };
  throw new Error(`not a recording (expected .json or .chunks.txt): ${file}`);
}
