// The run-log INSERT on a bun:sqlite connection: one transaction per batch of
// row tuples (see runRowTuple), positional parameters. Shared by the writer
// thread and the in-memory store.
import type { Database } from "bun:sqlite";
import { bindableRow, INSERT_RUN_POSITIONAL, type RunRowTuple } from "./row.ts";

export function runInserter(db: Database): (rows: RunRowTuple[]) => void {
  const insert = db.query(INSERT_RUN_POSITIONAL);
  return db.transaction((rows: RunRowTuple[]) => {
    for (const row of rows) insert.run(...bindableRow(row));
  });
}
