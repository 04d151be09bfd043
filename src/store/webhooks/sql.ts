// The webhook_endpoints, webhook_deliveries and webhook_attempts tables (migration 9) on either
// driver. A delivery is claimed by a compare-and-set on its next_attempt_at (claim), the same
// statement on SQLite and Postgres, so instances sharing a database never send it twice at once.
import { numberOrNull, textOrNull, type Row, type SqlConnection } from "../sql.ts";
import type { AttemptResult, DeliveryAttempt, DeliveryStatus, WebhookDelivery, WebhookEndpoint, WebhookStore } from "./types.ts";

const DELIVERY_COLUMNS = "id, endpoint_id, team_id, event_type, payload, status, attempts, next_attempt_at, last_status, last_error, created_at, updated_at";

export class SqlWebhookStore implements WebhookStore {
  constructor(private readonly sql: SqlConnection) {}

  async insertEndpoint(e: WebhookEndpoint): Promise<void> {
    await this.sql.run(
      `INSERT INTO webhook_endpoints (id, team_id, url, events, description, secret, previous_secret, previous_secret_expires_at, enabled, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [e.id, e.team_id, e.url, JSON.stringify(e.events), e.description, e.secret, e.previous_secret, e.previous_secret_expires_at, e.enabled, e.created_at],
    );
  }

  async getEndpoint(id: string): Promise<WebhookEndpoint | undefined> {
    const row = await this.sql.one("SELECT * FROM webhook_endpoints WHERE id = $1", [id]);
    return row ? endpointOf(row) : undefined;
  }

  async listEndpoints(teamId: string): Promise<WebhookEndpoint[]> {
    return (await this.sql.all("SELECT * FROM webhook_endpoints WHERE team_id = $1 ORDER BY created_at, id", [teamId])).map(endpointOf);
  }

  async deleteEndpoint(id: string): Promise<boolean> {
    // The endpoint first: a delivery claimed meanwhile finds it gone and is not sent.
    const removed = await this.sql.run("DELETE FROM webhook_endpoints WHERE id = $1", [id]);
    await this.sql.run("DELETE FROM webhook_attempts WHERE delivery_id IN (SELECT id FROM webhook_deliveries WHERE endpoint_id = $1)", [id]);
    await this.sql.run("DELETE FROM webhook_deliveries WHERE endpoint_id = $1", [id]);
    return removed > 0;
  }

  async rotateSecret(id: string, secret: string, previousExpiresAt: number): Promise<void> {
    await this.sql.run(
      "UPDATE webhook_endpoints SET previous_secret = secret, previous_secret_expires_at = $1, secret = $2 WHERE id = $3",
      [previousExpiresAt, secret, id],
    );
  }

  async disableEndpoint(id: string): Promise<void> {
    await this.sql.run("UPDATE webhook_endpoints SET enabled = FALSE WHERE id = $1", [id]);
  }

  async endpointsWithPlainSecrets(): Promise<WebhookEndpoint[]> {
    const rows = await this.sql.all("SELECT * FROM webhook_endpoints WHERE secret NOT LIKE 'v1:%' OR previous_secret NOT LIKE 'v1:%' ORDER BY id", []);
    return rows.map(endpointOf);
  }

  async replaceSecret(id: string, column: "secret" | "previous_secret", from: string, to: string): Promise<boolean> {
    // A compare-and-set: a rotation that ran since the row was read keeps its own value.
    const sql = column === "secret" ? "UPDATE webhook_endpoints SET secret = $1 WHERE id = $2 AND secret = $3" : "UPDATE webhook_endpoints SET previous_secret = $1 WHERE id = $2 AND previous_secret = $3";
    return (await this.sql.run(sql, [to, id, from])) === 1;
  }

  async insertDeliveries(ds: WebhookDelivery[]): Promise<void> {
    for (const d of ds) {
      await this.sql.run(
        `INSERT INTO webhook_deliveries (${DELIVERY_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
        [d.id, d.endpoint_id, d.team_id, d.event_type, d.payload, d.status, d.attempts, d.next_attempt_at, d.last_status, d.last_error, d.created_at, d.updated_at],
      );
    }
  }

  async getDelivery(id: string): Promise<WebhookDelivery | undefined> {
    const row = await this.sql.one(`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE id = $1`, [id]);
    return row ? deliveryOf(row) : undefined;
  }

  async listDeliveries(endpointId: string, limit: number, offset: number) {
    const rows = await this.sql.all(
      `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3`,
      [endpointId, limit, offset],
    );
    const [count] = await this.sql.all("SELECT COUNT(*) AS total FROM webhook_deliveries WHERE endpoint_id = $1", [endpointId]);
    const attempts = await this.attemptsOf(rows.map((r) => String(r.id)));
    const deliveries = rows.map((r) => {
      const d = deliveryOf(r);
      return { ...d, attempt_log: attempts.get(d.id) ?? [] };
    });
    return { deliveries, total: Number(count!.total) };
  }

  private async attemptsOf(ids: string[]): Promise<Map<string, DeliveryAttempt[]>> {
    const byDelivery = new Map<string, DeliveryAttempt[]>();
    if (ids.length === 0) return byDelivery;
    const marks = ids.map((_, i) => `$${i + 1}`).join(", ");
    const rows = await this.sql.all(`SELECT * FROM webhook_attempts WHERE delivery_id IN (${marks}) ORDER BY delivery_id, attempt`, ids);
    for (const row of rows) {
      const a = attemptOf(row);
      byDelivery.set(a.delivery_id, [...(byDelivery.get(a.delivery_id) ?? []), a]);
    }
    return byDelivery;
  }

  async dueDeliveries(now: number, limit: number): Promise<WebhookDelivery[]> {
    const rows = await this.sql.all(
      `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= $1 ORDER BY next_attempt_at, id LIMIT $2`,
      [now, limit],
    );
    return rows.map(deliveryOf);
  }

  async claim(id: string, seen: number, until: number): Promise<boolean> {
    const changed = await this.sql.run(
      "UPDATE webhook_deliveries SET next_attempt_at = $1 WHERE id = $2 AND status = 'pending' AND next_attempt_at = $3",
      [until, id, seen],
    );
    return changed === 1;
  }

  async recordAttempt({ attempt: a, status, next_attempt_at }: AttemptResult): Promise<void> {
    const changed = await this.sql.run(
      `UPDATE webhook_deliveries SET status = $1, attempts = $2, next_attempt_at = $3, last_status = $4, last_error = $5, updated_at = $6
       WHERE id = $7 AND status = 'pending'`,
      [status, a.attempt, next_attempt_at, a.response_status, a.error, a.at, a.delivery_id],
    );
    // Gone (its endpoint was deleted meanwhile): no attempt row to orphan.
    if (changed === 0) return;
    await this.sql.run(
      `INSERT INTO webhook_attempts (delivery_id, attempt, at, response_status, error, duration_ms) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (delivery_id, attempt) DO NOTHING`,
      [a.delivery_id, a.attempt, a.at, a.response_status, a.error, a.duration_ms],
    );
  }

  async pruneDeliveries(before: number): Promise<number> {
    const finished = "SELECT id FROM webhook_deliveries WHERE status <> 'pending' AND updated_at < $1";
    await this.sql.run(`DELETE FROM webhook_attempts WHERE delivery_id IN (${finished})`, [before]);
    return this.sql.run("DELETE FROM webhook_deliveries WHERE status <> 'pending' AND updated_at < $1", [before]);
  }

  async retryDelivery(id: string, at: number): Promise<boolean> {
    return (await this.sql.run("UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = $1, updated_at = $1 WHERE id = $2 AND status = 'failed'", [at, id])) === 1;
  }
}


function endpointOf(row: Row): WebhookEndpoint {
  return {
    id: String(row.id),
    team_id: String(row.team_id),
    url: String(row.url),
    events: JSON.parse(String(row.events)) as string[],
    description: String(row.description),
    secret: String(row.secret),
    previous_secret: textOrNull(row.previous_secret),
    previous_secret_expires_at: numberOrNull(row.previous_secret_expires_at),
    enabled: Boolean(row.enabled),
    created_at: String(row.created_at),
  };
}

function deliveryOf(row: Row): WebhookDelivery {
  return {
    id: String(row.id),
    endpoint_id: String(row.endpoint_id),
    team_id: String(row.team_id),
    event_type: String(row.event_type),
    payload: String(row.payload),
    status: String(row.status) as DeliveryStatus,
    attempts: Number(row.attempts),
    next_attempt_at: numberOrNull(row.next_attempt_at),
    last_status: numberOrNull(row.last_status),
    last_error: textOrNull(row.last_error),
    created_at: Number(row.created_at),
    updated_at: Number(row.updated_at),
  };
}

function attemptOf(row: Row): DeliveryAttempt {
  return {
    delivery_id: String(row.delivery_id),
    attempt: Number(row.attempt),
    at: Number(row.at),
    response_status: numberOrNull(row.response_status),
    error: textOrNull(row.error),
    duration_ms: Number(row.duration_ms),
  };
}
