// The run-log INSERT on a bun:sqlite connection: one transaction per batch,
// positional parameters. Shared by the writer thread and the in-memory store.
import type { Database } from "bun:sqlite";
import { INSERT_RUN_POSITIONAL, runRowValues } from "./row.ts";
import type { RunRecord } from "./types.ts";

export function runInserter(db: Database): (records: RunRecord[]) => void {
  const insert = db.query(INSERT_RUN_POSITIONAL);
  return db.transaction((records: RunRecord[]) => {
    for (const r of records) insert.run(...runRowValues(r));
  });
}
