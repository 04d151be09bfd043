// The thread that checkpoints a file-backed SQLite store's WAL: it copies the
// committed pages into the database file and, with synchronous = NORMAL, fsyncs
// both files. On a busy disk that fsync took 90-540 ms under load (measured
// under bench case a). SQLite runs it inside whichever commit crosses
// wal_autocheckpoint, which was the run-log writer's, so every acknowledgement
// and every response waiting for its run record waited with it. Here it holds
// up nothing: a PASSIVE checkpoint on its own connection runs beside the
// writer's commits (WAL allows a checkpointer and a writer at once) and never
// waits for a lock. The writer's and the main connection's own automatic
// checkpoints stay only as a backstop (CHECKPOINT_BACKSTOP_PAGES).
import type { Database } from "bun:sqlite";
import { openConnection } from "./sqlite-connection.ts";

/** How often the WAL is folded into the database file; under full load that is a few MB of WAL. */
export const CHECKPOINT_INTERVAL_MS = 1_000;

export type CheckpointerRequest = { op: "open"; path: string } | { op: "close" };
/** `closed`: the answer to close. `error`: a failed open or checkpoint, once per run of failures. */
export type CheckpointerReply = { closed: true } | { error: string };

declare const self: Worker;

let db: Database | undefined;
let timer: ReturnType<typeof setInterval> | undefined;
let failing = false;

function checkpoint(): void {
  try {
    db!.query("PRAGMA wal_checkpoint(PASSIVE)").get();
    failing = false;
  } catch (e) {
    if (!failing) self.postMessage({ error: `run log checkpoint failed: ${(e as Error)?.message ?? e}` } satisfies CheckpointerReply);
    failing = true;
  }
}

self.onmessage = (event: MessageEvent<CheckpointerRequest>) => {
  const msg = event.data;
  if (msg.op === "open") {
    try {
      db = openConnection(msg.path);
      timer = setInterval(checkpoint, CHECKPOINT_INTERVAL_MS);
    } catch (e) {
      self.postMessage({ error: `run log checkpointer could not open ${msg.path}: ${(e as Error)?.message ?? e}` } satisfies CheckpointerReply);
    }
    return;
  }
  clearInterval(timer);
  db?.close();
  db = undefined;
  self.postMessage({ closed: true } satisfies CheckpointerReply);
};
