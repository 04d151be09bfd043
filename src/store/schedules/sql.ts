// The schedules table (migration 18) on either driver. A paused schedule has no next firing, so the
// due ones are those with `next_fire_at <= now`; a firing advances `next_fire_at` by a compare-and-set
// on the value it read, the same statement on SQLite and Postgres.
import { numberOrNull, textOrNull, type Row, type SqlConnection } from "../sql.ts";
import type { Schedule, ScheduleChange, ScheduleStore } from "./types.ts";

const COLUMNS = "id, team_id, workflow_name, cron, timezone, input, paused, next_fire_at, last_fired_at, last_run_id, skipped_firings, created_at, updated_at";

export class SqlScheduleStore implements ScheduleStore {
  constructor(private readonly sql: SqlConnection) {}

  async insert(s: Schedule): Promise<void> {
    await this.sql.run(`INSERT INTO schedules (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`, [
      s.id, s.team_id, s.workflow_name, s.cron, s.timezone, JSON.stringify(s.input ?? null), s.paused,
      s.next_fire_at, s.last_fired_at, s.last_run_id, s.skipped_firings, s.created_at, s.updated_at,
    ]);
  }

  async get(id: string): Promise<Schedule | undefined> {
    const row = await this.sql.one(`SELECT ${COLUMNS} FROM schedules WHERE id = $1`, [id]);
    return row ? scheduleOf(row) : undefined;
  }

  async list(teamId: string, limit: number, offset: number) {
    const rows = await this.sql.all(`SELECT ${COLUMNS} FROM schedules WHERE team_id = $1 ORDER BY created_at, id LIMIT $2 OFFSET $3`, [teamId, limit, offset]);
    const [count] = await this.sql.all("SELECT COUNT(*) AS total FROM schedules WHERE team_id = $1", [teamId]);
    return { schedules: rows.map(scheduleOf), total: Number(count!.total) };
  }

  async update(id: string, c: ScheduleChange): Promise<void> {
    await this.sql.run("UPDATE schedules SET cron = $1, timezone = $2, input = $3, paused = $4, next_fire_at = $5, updated_at = $6 WHERE id = $7", [
      c.cron, c.timezone, JSON.stringify(c.input ?? null), c.paused, c.next_fire_at, c.updated_at, id,
    ]);
  }

  async delete(id: string): Promise<boolean> {
    return (await this.sql.run("DELETE FROM schedules WHERE id = $1", [id])) === 1;
  }

  async due(now: number, limit: number): Promise<Schedule[]> {
    const rows = await this.sql.all(`SELECT ${COLUMNS} FROM schedules WHERE next_fire_at <= $1 ORDER BY next_fire_at, id LIMIT $2`, [now, limit]);
    return rows.map(scheduleOf);
  }

  async advance(id: string, from: number, to: number | null, runId: string | null): Promise<boolean> {
    // A skipped firing keeps the last run; a started one records it. (Postgres needs $2's type named.)
    const changed = await this.sql.run(
      `UPDATE schedules SET next_fire_at = $1, last_fired_at = CASE WHEN CAST($2 AS TEXT) IS NULL THEN last_fired_at ELSE $4 END,
         last_run_id = COALESCE(CAST($2 AS TEXT), last_run_id), skipped_firings = skipped_firings + CASE WHEN CAST($2 AS TEXT) IS NULL THEN 1 ELSE 0 END
       WHERE id = $3 AND next_fire_at = $4`,
      [to, runId, id, from],
    );
    return changed === 1;
  }
}

function scheduleOf(row: Row): Schedule {
  return {
    id: String(row.id),
    team_id: String(row.team_id),
    workflow_name: String(row.workflow_name),
    cron: String(row.cron),
    timezone: String(row.timezone),
    input: JSON.parse(String(row.input)),
    paused: Boolean(row.paused),
    next_fire_at: numberOrNull(row.next_fire_at),
    last_fired_at: numberOrNull(row.last_fired_at),
    last_run_id: textOrNull(row.last_run_id),
    skipped_firings: Number(row.skipped_firings),
    created_at: Number(row.created_at),
    updated_at: Number(row.updated_at),
  };
}
