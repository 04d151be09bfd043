// Worker thread that owns the run log's INSERTs for a file-backed SQLite
// store, so a commit (page writes to the WAL) never runs on the thread that
// serves requests. It has its own connection to the same file: WAL lets the
// main thread's reads go on while this connection writes. Records arrive as
// one JSON text of row tuples per batch (far cheaper to post than structured
// objects, and half the text of the records: see runRowTuple) and
// each batch is one transaction; the reply comes only after COMMIT returns,
// so a caller that awaits it knows the batch survives a kill -9.
// Bun-only API (bun:sqlite): keep it inside src/store.
import { Database } from "bun:sqlite";
import { runInserter } from "./sqlite-insert.ts";
import type { RunRowTuple } from "./row.ts";

export type WriterRequest = { op: "open"; path: string } | { op: "insert"; seq: number; json: string } | { op: "close"; seq: number };
export type WriterReply = { seq: number; error?: string };

declare const self: Worker;

let db: Database | undefined;
let insertBatch: ((rows: RunRowTuple[]) => void) | undefined;
let openError: string | undefined;

function open(path: string): void {
  try {
    const conn = new Database(path, { strict: true });
    conn.run("PRAGMA busy_timeout = 5000");
    // Per connection: commits append to the WAL without fsync; a process kill loses nothing committed.
    conn.run("PRAGMA synchronous = NORMAL");
    insertBatch = runInserter(conn);
    db = conn;
  } catch (e) {
    // Reported with every insert, which is what callers wait on.
    openError = `run log writer could not open ${path}: ${(e as Error)?.message ?? e}`;
  }
}

function handle(msg: WriterRequest): WriterReply | undefined {
  switch (msg.op) {
    case "open":
      open(msg.path);
      return undefined;
    case "insert":
      if (!insertBatch) throw new Error(openError ?? "run log writer used before it was opened");
      insertBatch(JSON.parse(msg.json) as RunRowTuple[]);
      return { seq: msg.seq };
    case "close":
      db?.close();
      db = undefined;
      insertBatch = undefined;
      return { seq: msg.seq };
  }
}

self.onmessage = (event: MessageEvent<WriterRequest>) => {
  const msg = event.data;
  try {
    const reply = handle(msg);
    if (reply) self.postMessage(reply);
  } catch (e) {
    self.postMessage({ seq: msg.op === "open" ? 0 : msg.seq, error: (e as Error)?.message ?? String(e) } satisfies WriterReply);
  }
};
