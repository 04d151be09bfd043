// The thread that serves a file-backed SQLite store's reads and checkpoints its
// WAL, on a connection of its own, so that neither runs on the thread that
// serves requests.
//
// Reads: the dashboard's and the telemetry API's aggregates scan every run in
// their window. Over a day of 1,000,000 runs (measured): totals by model 724 ms,
// the day's series 626 ms, a model's page of runs with its count 422 ms, and
// the hosted /health's integrity check 962 ms; as queries on the main
// connection each stopped every request for that long.
//
// Checkpoints copy the WAL's committed pages into the database file and, with
// synchronous = NORMAL, fsync both files. On a busy disk that fsync took
// 90-540 ms under load (bench case a). SQLite runs it inside whichever commit
// takes the WAL past wal_autocheckpoint, which was the run-log writer's, so
// every acknowledgement, and every response waiting for its run record, waited
// with it. A PASSIVE checkpoint here runs beside the writer's commits (WAL
// allows a checkpointer and a writer at once) and never waits for a lock. The
// other connections' own automatic checkpoints stay only as a backstop
// (CHECKPOINT_BACKSTOP_PAGES).
import type { Database, SQLQueryBindings } from "bun:sqlite";
import { openConnection } from "./sqlite-connection.ts";
import { answerRequests } from "./worker-requests.ts";

/** How often the WAL is folded into the database file; under full load that is a few MB of WAL. */
const CHECKPOINT_INTERVAL_MS = 1_000;

export type ReaderRequest =
  | { op: "open"; path: string }
  | { op: "all"; seq: number; text: string; params: unknown[] }
  | { op: "close"; seq: number };
/** seq 0 answers no request: a failed checkpoint, reported once per run of failures. */
export type ReaderReply = { seq: number; rows?: Record<string, unknown>[]; error?: string };

declare const self: Worker;

let db: Database | undefined;
let openError: string | undefined;
let timer: ReturnType<typeof setInterval> | undefined;
let failing = false;

function checkpoint(): void {
  try {
    db!.query("PRAGMA wal_checkpoint(PASSIVE)").get();
    failing = false;
  } catch (e) {
    if (!failing) self.postMessage({ seq: 0, error: `SQLite checkpoint failed: ${(e as Error)?.message ?? e}` } satisfies ReaderReply);
    failing = true;
  }
}

answerRequests<ReaderRequest>(self, (msg): ReaderReply | undefined => {
  switch (msg.op) {
    case "open":
      try {
        db = openConnection(msg.path);
        timer = setInterval(checkpoint, CHECKPOINT_INTERVAL_MS);
      } catch (e) {
        // Reported with every read, which is what callers wait on.
        openError = `SQLite reader could not open ${msg.path}: ${(e as Error)?.message ?? e}`;
      }
      return undefined;
    case "all":
      if (!db) throw new Error(openError ?? "SQLite reader used before it was opened");
      return { seq: msg.seq, rows: db.query(msg.text).all(...(msg.params as SQLQueryBindings[])) as Record<string, unknown>[] };
    case "close":
      clearInterval(timer);
      db?.close();
      db = undefined;
      return { seq: msg.seq };
  }
});
