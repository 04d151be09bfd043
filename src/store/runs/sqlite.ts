// The run log of a SQLite store. A file database's inserts, pruning and the commits before a read
// go to its writer thread (sqlite-threads.ts); an in-memory one, which cannot be shared with a
// second connection, writes on its only connection.
import type { Database } from "bun:sqlite";
import type { RunRecord } from "../../core/run-record.ts";
import { runRowTuple, type RunRowTuple } from "../row.ts";
import type { SqlConnection } from "../sql.ts";
import { runInserter } from "../sqlite-insert.ts";
import type { WriterThread } from "../sqlite-threads.ts";
import { SqlRunLog } from "./sql.ts";

export class SqliteRunLog extends SqlRunLog {
  private insertHere: ((rows: RunRowTuple[]) => void) | undefined;

  constructor(
    sql: SqlConnection,
    private readonly db: Database,
    private readonly thread: WriterThread | undefined,
  ) {
    super(sql);
  }

  protected override async settle(): Promise<void> {
    await this.thread?.sync();
  }

  override async prune(before: number, team?: string): Promise<number> {
    if (!this.thread) return super.prune(before, team);
    await this.thread.sync();
    // Mostly there is nothing old enough: an index probe here spares waking (or starting) the writer.
    const old = team === undefined
      ? this.db.query("SELECT 1 FROM runs WHERE ts < ? AND team_id IS NULL LIMIT 1").get(before)
      : this.db.query("SELECT 1 FROM runs WHERE team_id = ? AND ts < ? LIMIT 1").get(team, before);
    if (!old) return 0;
    return this.thread.prune(before, team);
  }

  prepareWrites(): void {
    this.thread?.ready();
  }

  async insertRuns(records: RunRecord[]): Promise<void> {
    if (records.length === 0) return;
    if (this.thread) return this.thread.insert(records);
    (this.insertHere ??= runInserter(this.db))(records.map(runRowTuple));
  }
}
