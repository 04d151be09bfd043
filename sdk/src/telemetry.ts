// GlobalConfig.telemetry: each vendor call's record, uploaded in batches to the Relay cloud's
// POST /v1/telemetry/logs (src/core/mesh/run-upload.ts reads them) in the hosted log's record shape.
// Best effort: records wait at most a second, an upload is never awaited by a run, and a failed
// one is dropped. flushTelemetry() sends what is waiting, for scripts about to exit.
import { logRecord, type LogRecord } from "../../src/core/tenancy/request-log.ts";
import type { RunRecord } from "../../src/portable.ts";
import { getConfig, platformEnv } from "./config.ts";

const BATCH_SIZE = 100;
const WAIT_MS = 1000;
const UPLOAD_TIMEOUT_MS = 10_000;

let queued: LogRecord[] = [];
let timer: ReturnType<typeof setTimeout> | undefined;
const uploads = new Set<Promise<void>>();

/** Queues `record` when telemetry is enabled with an endpoint and a key; uploads full batches at once. */
export function recordCall(record: RunRecord): void {
  if (!target()) return;
  queued.push(logRecord(record));
  if (queued.length >= BATCH_SIZE) return void flushTelemetry();
  if (!timer) {
    timer = setTimeout(() => void flushTelemetry(), WAIT_MS);
    // A waiting batch does not keep the process alive (Node, Bun, Deno); flushTelemetry() sends it before exit.
    (timer as { unref?: () => void }).unref?.();
  }
}

/** Uploads the queued records and waits for every upload under way; never rejects. */
export async function flushTelemetry(): Promise<void> {
  clearTimeout(timer);
  timer = undefined;
  const runs = queued;
  queued = [];
  const to = target();
  if (runs.length && to) {
    const upload = send(to, runs).catch(() => {});
    uploads.add(upload);
    void upload.finally(() => uploads.delete(upload));
  }
  await Promise.all(uploads);
}

function target(): { url: string; apiKey: string } | undefined {
  const t = getConfig().telemetry;
  const host = t?.apiEndpoint ?? platformEnv().RELAY_API_HOST;
  if (!t?.enabled || !host || !t.apiKey) return undefined;
  return { url: `${host.replace(/\/+$/, "")}/v1/telemetry/logs`, apiKey: t.apiKey };
}

async function send(to: { url: string; apiKey: string }, runs: LogRecord[]): Promise<void> {
  const body = JSON.stringify({ batch_id: `sdk_${crypto.randomUUID()}`, runs });
  const res = await fetch(to.url, { method: "POST", headers: { "content-type": "application/json", "x-api-key": to.apiKey }, body, signal: AbortSignal.timeout(UPLOAD_TIMEOUT_MS) });
  await res.body?.cancel();
}
