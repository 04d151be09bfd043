// The budgets' spend on a SQLite store: a file database adds to a counter on its writer thread, so
// the request thread never waits on the file's write lock while a commit of runs holds it. A
// window's spend is read on the main connection (SqlConnection.one): the first budgeted request
// would otherwise wait ~5 ms for the reader thread to start.
import type { SqlConnection } from "../sql.ts";
import type { WriterThread } from "../sqlite-threads.ts";
import { SqlBudgetSpend } from "./sql.ts";

export class SqliteBudgetSpend extends SqlBudgetSpend {
  constructor(
    sql: SqlConnection,
    private readonly thread: WriterThread | undefined,
  ) {
    super(sql);
  }

  override async add(key: string, delta: number): Promise<number> {
    return this.thread ? this.thread.incr(key, delta) : super.add(key, delta);
  }
}
