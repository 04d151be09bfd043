// A proxy's side of the mesh (mesh.enabled): each sync pushes the outbox's outcomes to the cloud
// (POST /v1/telemetry, in batches whose id stays the same across retries, so the cloud stores each
// once) and pulls the cloud's aggregates (GET /v1/status) into the board strategies read. Syncs run
// every mesh.intervalSec and on POST /v1/mesh/sync; one at a time. The cloud's URL is the
// operator's own setting, not a user's, so it is fetched directly, each call bounded by a timeout.
import type { Config } from "../../config/schema.ts";
import { CoreError } from "../errors.ts";
import type { Logger } from "../log.ts";
import { unrefTimer } from "../../runtime/timers.ts";
import type { MeshBoard, ReceivedRow } from "./board.ts";
import { outcomeWire } from "./ingest.ts";
import type { MeshOutcome } from "./outcome.ts";
import type { MeshOutbox } from "./outbox.ts";

const BATCH_SIZE = 1_000;
/** Batches one sync sends at most; the rest wait for the next. */
const MAX_BATCHES = 20;
const TIMEOUT_MS = 10_000;

export interface MeshSyncDeps {
  config(): Config;
  outbox: MeshOutbox;
  board: MeshBoard;
  log: Logger;
}

interface Batch {
  id: string;
  outcomes: MeshOutcome[];
}

export class MeshSync {
  private readonly counts = { syncs: 0, failedSyncs: 0, batchesSent: 0, outcomesSent: 0, pulls: 0, rowsReceived: 0 };
  private lastSyncAt: number | null = null;
  private lastSuccessAt: number | null = null;
  private lastError: string | null = null;
  /** The batch sent and not yet acknowledged: re-sent as it is (same id) before any new one. */
  private unacked: Batch | undefined;
  private running: Promise<void> | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly deps: MeshSyncDeps) {}

  /** Syncs every mesh.intervalSec while the mesh is enabled (the setting is read at each turn). */
  start(): void {
    if (this.timer) return;
    const next = () => {
      this.timer = setTimeout(async () => {
        if (this.deps.config().mesh.enabled) await this.sync().catch(() => undefined);
        next();
      }, this.deps.config().mesh.intervalSec * 1000);
      unrefTimer(this.timer);
    };
    next();
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Push then pull, now; joins a sync under way. Rejects with 409 when the mesh is off or unconfigured, 502 when the cloud fails. */
  async sync(): Promise<void> {
    const m = this.deps.config().mesh;
    if (!m.enabled) throw new CoreError(409, "mesh_disabled", "the mesh is off: set mesh.enabled, mesh.url and mesh.apiKey");
    if (!m.url || !m.apiKey) throw new CoreError(409, "mesh_not_configured", "mesh.url and mesh.apiKey (env RELAY_MESH_API_KEY) must be set");
    const cloud = { url: m.url.replace(/\/+$/, ""), key: m.apiKey };
    return (this.running ??= this.run(cloud).finally(() => (this.running = undefined)));
  }

  private async run(cloud: { url: string; key: string }): Promise<void> {
    this.counts.syncs++;
    this.lastSyncAt = Date.now();
    try {
      await this.push(cloud);
      await this.pull(cloud);
      this.lastSuccessAt = Date.now();
      this.lastError = null;
    } catch (e) {
      this.counts.failedSyncs++;
      this.lastError = e instanceof Error ? e.message : String(e);
      this.deps.log.warn("mesh sync failed", { error: this.lastError });
      throw new CoreError(502, "mesh_sync_failed", `mesh sync failed: ${this.lastError}`);
    }
  }

  private async push(cloud: { url: string; key: string }): Promise<void> {
    for (let i = 0; i < MAX_BATCHES; i++) {
      const batch = (this.unacked ??= this.nextBatch());
      if (!batch) return;
      await call(cloud, "POST", "/v1/telemetry", { batch_id: batch.id, outcomes: batch.outcomes.map(outcomeWire) });
      this.unacked = undefined;
      this.counts.batchesSent++;
      this.counts.outcomesSent += batch.outcomes.length;
    }
  }

  private nextBatch(): Batch | undefined {
    const outcomes = this.deps.outbox.take(BATCH_SIZE);
    return outcomes.length ? { id: `mb_${crypto.randomUUID()}`, outcomes } : undefined;
  }

  private async pull(cloud: { url: string; key: string }): Promise<void> {
    const status = (await call(cloud, "GET", "/v1/status")) as { global?: { models?: ReceivedRow[] } };
    const rows = status.global?.models;
    if (!Array.isArray(rows)) throw new Error("the cloud's /v1/status has no global.models");
    this.deps.board.replace(rows);
    this.counts.pulls++;
    this.counts.rowsReceived = rows.length;
  }

  /** GET /v1/mesh/stats' answer. */
  stats() {
    const m = this.deps.config().mesh;
    const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());
    return {
      enabled: m.enabled,
      url: m.url ?? null,
      intervalSec: m.intervalSec,
      sent: { batches: this.counts.batchesSent, outcomes: this.counts.outcomesSent },
      received: { pulls: this.counts.pulls, rows: this.counts.rowsReceived, models: this.deps.board.models },
      pending: this.deps.outbox.pending + (this.unacked?.outcomes.length ?? 0),
      dropped: this.deps.outbox.dropped,
      syncs: this.counts.syncs,
      errors: this.counts.failedSyncs,
      lastSyncAt: iso(this.lastSyncAt),
      lastSuccessAt: iso(this.lastSuccessAt),
      lastError: this.lastError,
    };
  }
}

/** One call to the cloud; a non-2xx answer throws with its status and the start of its body. */
async function call(cloud: { url: string; key: string }, method: "GET" | "POST", path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${cloud.url}${path}`, {
    method,
    headers: { "x-api-key": cloud.key, ...(body !== undefined && { "content-type": "application/json" }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 200)}`);
  return text ? JSON.parse(text) : {};
}
