// The run log of a Postgres store: its batch insert (the reads are SqlRunLog's).
import type { SQL } from "bun";
import type { RunRecord } from "../../core/run-record.ts";
import { RUN_COLUMN_KINDS, RUN_COLUMNS, toRunRow, type ColumnKind } from "../row.ts";
import type { SqlConnection } from "../sql.ts";
import { SqlRunLog } from "./sql.ts";

const RECORDSET_TYPE: Record<ColumnKind, string> = {
  text: "text",
  int: "bigint",
  real: "double precision",
  bool: "boolean",
  // JSON arrives as text inside the row and is parsed by the ::jsonb cast.
  json: "text",
};

// The whole batch travels as one JSON parameter, unpacked server-side: one
// prepared statement for any batch size, no bind-parameter limit, and a
// single statement is atomic on its own.
const INSERT_RUNS = `INSERT INTO runs (${RUN_COLUMNS.join(", ")})
  SELECT ${RUN_COLUMNS.map((c) => (RUN_COLUMN_KINDS[c] === "json" ? `${c}::jsonb` : c)).join(", ")}
  FROM jsonb_to_recordset($1::jsonb)
    AS r(${RUN_COLUMNS.map((c) => `${c} ${RECORDSET_TYPE[RUN_COLUMN_KINDS[c]]}`).join(", ")})
  ON CONFLICT (id) DO NOTHING`;

export class PostgresRunLog extends SqlRunLog {
  constructor(
    sql: SqlConnection,
    private readonly client: SQL,
  ) {
    super(sql);
  }

  async insertRuns(records: RunRecord[]): Promise<void> {
    if (records.length > 0) await this.client.unsafe(INSERT_RUNS, [this.client.json(records.map(toRunRow))]);
  }
}
