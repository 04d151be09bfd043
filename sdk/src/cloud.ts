// Cloud mode (interface §2.11 RunOptions.mode "cloud"): the workflow runs on the Relay cloud, with
// the team's stored provider keys, budgets and fallback. A cloud run sends the definition first
// (POST /api/v1/workflows, which stores a new version only when the definition changed, so
// "deploy when not deployed" is that call), triggers that version (POST /api/v1/webhooks/trigger)
// and polls GET /api/v1/webhooks/runs/:id with backoff until the run ends, the timeout passes or the
// signal aborts. The result is the server's WorkflowResult with its dates as Dates, the same shape
// as local mode's. The cloud is RELAY_API_HOST; GlobalConfig.cloud.accessToken authenticates: a
// user's access token (`rat_…`) goes as `Authorization: Bearer`, anything else (an API key,
// `rk_live_…`) as `x-api-key`. deploy() sends the definition with its webhook trigger (every
// deploy replaces the workflow's trigger, so a cloud run sends it too) and then creates each
// attached schedule that the team does not have yet (POST /api/v1/schedules).
import type { StepDefinition, WorkflowError, WorkflowResult } from "../../src/core/workflows/index.ts";
import { apiHost, getConfig, platformEnv } from "./config.ts";

/** The first poll waits this long; each next one half as long again, up to POLL_MAX_MS. */
const POLL_FIRST_MS = 50;
const POLL_MAX_MS = 2000;

/** The Relay cloud refused a request (its hosted error `{error: {code, message}, request_id}`), or answered what is not one. */
export class RelayCloudError extends Error {
  override readonly name = "RelayCloudError";
  constructor(
    message: string,
    /** The HTTP status. */
    readonly status: number,
    /** The hosted error's code: `invalid_api_key`, `cloud_disabled`, `not_found`, … */
    readonly code: string,
    readonly requestId?: string,
  ) {
    super(message);
  }
}

/** Interface §2.10's webhook trigger configuration. */
export interface WebhookTrigger {
  /** The path under the team's hook address: the trigger answers at `{hooks_url}/<team>/<endpoint>`. */
  endpoint: string;
  method?: "POST" | "PUT";
  /** Headers a call must carry with these values. */
  headers?: Record<string, string>;
  /** Signs calls: with signatureHeader, `t=<unix s>,v1=<hex HMAC-SHA256>` in it; without, Standard Webhooks (a `whsec_…` secret). */
  secret?: string;
  signatureHeader?: string;
  /** Calls allowed per window, the window written as `30s`, `1m`, `2h`, `1d`. */
  rateLimit?: { requests: number; window: string };
}

/** A cron schedule for a workflow: `cron` read on `timezone`'s wall clock (IANA; UTC by default), each run with `input`. */
export interface WorkflowSchedule {
  cron: string;
  timezone?: string;
  input?: unknown;
}

/** A deployed version of a workflow, as the cloud answered a deploy. */
export interface Deployment {
  /** `wf_…`, one per version. */
  id: string;
  name: string;
  version: number;
  /** false when this definition was deployed already (the version is the one stored then). */
  created: boolean;
  /** The webhook trigger as the cloud registered it (its secret not shown), with the `url` to call; null without one. */
  trigger: { endpoint: string; url: string; method: "POST" | "PUT"; [field: string]: unknown } | null;
  /** The team's schedule (`sch_…`) for each attached one, made by this deploy or found equal. */
  schedules: Array<{ id: string; cron: string; timezone: string; [field: string]: unknown }>;
}

/** What a workflow sends to the cloud: its definition and what starts it. */
export interface CloudWorkflow {
  name: string;
  steps: readonly StepDefinition[];
  trigger?: WebhookTrigger;
  schedules: readonly WorkflowSchedule[];
}

type Json = Record<string, any>;
interface Target {
  host: string;
  headers: Record<string, string>;
}

/** Where and as whom to call the cloud; throws when cloud mode is not configured. */
function target(): Target {
  const cloud = getConfig().cloud;
  if (!cloud?.enabled) throw new Error("cloud mode is off: configure({ cloud: { enabled: true, accessToken } }) first");
  const token = cloud.accessToken;
  if (!token) throw new Error("cloud mode needs cloud.accessToken: a Relay access token (rat_…) or API key (rk_live_…)");
  const host = apiHost(platformEnv());
  if (!host) throw new Error("no Relay API host for cloud mode: set RELAY_API_HOST");
  const auth: Record<string, string> = token.startsWith("rat_") ? { authorization: `Bearer ${token}` } : { "x-api-key": token };
  return { host: host.replace(/\/+$/, ""), headers: { "content-type": "application/json", ...auth } };
}

async function call(t: Target, method: string, path: string, body: unknown, signal: AbortSignal | undefined): Promise<Json> {
  const res = await fetch(`${t.host}${path}`, { method, headers: t.headers, body: body === undefined ? undefined : JSON.stringify(body), signal });
  const text = await res.text();
  let parsed: Json | undefined;
  try {
    parsed = JSON.parse(text) as Json;
  } catch {
    parsed = undefined;
  }
  if (res.ok && parsed) return parsed;
  const error = parsed?.error as { code?: string; message?: string } | undefined;
  throw new RelayCloudError(`${method} ${path}: ${error?.message ?? `the cloud answered ${res.status} ${text.slice(0, 200)}`}`, res.status, error?.code ?? "bad_response", parsed?.request_id);
}

/** Sends the definition and its trigger: a new version when the definition changed, the stored one when not. */
async function deployDefinition(t: Target, wf: CloudWorkflow, signal?: AbortSignal): Promise<Omit<Deployment, "schedules">> {
  const answer = await call(t, "POST", "/api/v1/workflows", { name: wf.name, steps: wf.steps, ...(wf.trigger && { trigger: wf.trigger }) }, signal);
  const w = answer.workflow as Json;
  return { id: w.id, name: w.name, version: w.version, created: answer.created === true, trigger: answer.trigger ?? null };
}

/** Deploys the workflow with its trigger, then makes each attached schedule the team lacks. */
export async function deployWorkflow(wf: CloudWorkflow): Promise<Deployment> {
  const t = target();
  const deployed = await deployDefinition(t, wf);
  const existing = wf.schedules.length ? await teamSchedules(t) : [];
  const schedules = [];
  for (const s of wf.schedules) {
    const wanted = { workflow: wf.name, cron: s.cron, timezone: s.timezone ?? "UTC", input: s.input ?? null };
    const same = existing.find((e) => e.workflow === wanted.workflow && e.cron === wanted.cron && e.timezone === wanted.timezone && sameJson(e.input, wanted.input));
    schedules.push(same ?? ((await call(t, "POST", "/api/v1/schedules", wanted, undefined)).schedule as Json));
  }
  return { ...deployed, schedules: schedules as Deployment["schedules"] };
}

async function teamSchedules(t: Target): Promise<Json[]> {
  const all: Json[] = [];
  for (let offset = 0; ; offset += 100) {
    const page = await call(t, "GET", `/api/v1/schedules?limit=100&offset=${offset}`, undefined, undefined);
    all.push(...(page.data as Json[]));
    if (all.length >= page.total || page.data.length === 0) return all;
  }
}

/** Whether two JSON values are equal, objects whatever their key order. */
function sameJson(a: unknown, b: unknown): boolean {
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return a === b;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const [ka, kb] = [Object.keys(a), Object.keys(b)];
  return ka.length === kb.length && ka.every((k) => sameJson((a as Json)[k], (b as Json)[k]));
}

export interface CloudRunOptions {
  timeout?: number;
  signal?: AbortSignal;
  metadata?: Record<string, unknown>;
}

/**
 * Runs the workflow on the cloud and waits for its result. A timeout or abort while waiting ends
 * the wait with a failed result (the run goes on in the cloud: its id is in `metadata.runId`); the
 * cloud refusing a request rejects with a RelayCloudError.
 */
export async function runInCloud(wf: CloudWorkflow, input: unknown, options: CloudRunOptions): Promise<WorkflowResult> {
  const t = target();
  const name = wf.name;
  const startTime = new Date();
  const stop = stopSignal(options);
  const ended = (error: WorkflowError, runId?: string): WorkflowResult => {
    const endTime = new Date();
    const metadata = { ...options.metadata, workflowName: name, startTime, endTime, duration: endTime.getTime() - startTime.getTime(), ...(runId && { runId }) };
    return { success: false, steps: {}, error, metadata };
  };
  let runId: string | undefined;
  try {
    const deployed = await deployDefinition(t, wf, stop.signal);
    runId = ((await call(t, "POST", "/api/v1/webhooks/trigger", { workflow: name, version: deployed.version, input }, stop.signal)).run as Json).id as string;
    const result = await waitFor(t, runId, stop.signal);
    return resultOf(result, options.metadata);
  } catch (e) {
    if (!stop.signal.aborted) throw e;
    return ended(stop.why(), runId);
  } finally {
    stop.clear();
  }
}

/** Polls the run until it ended; a failed poll (no answer, 5xx, 429) is retried, other refusals reject. */
async function waitFor(t: Target, runId: string, signal: AbortSignal): Promise<Json> {
  for (let wait = POLL_FIRST_MS; ; wait = Math.min(wait * 1.5, POLL_MAX_MS)) {
    await sleep(wait, signal);
    try {
      const run = (await call(t, "GET", `/api/v1/webhooks/runs/${encodeURIComponent(runId)}`, undefined, signal)).run as Json;
      if (run.status === "succeeded" || run.status === "failed") return run.result as Json;
    } catch (e) {
      if (signal.aborted || (e instanceof RelayCloudError && e.status < 500 && e.status !== 429)) throw e;
    }
  }
}

/** The stored result as local mode's: Dates for the times, the run's metadata added. */
function resultOf(result: Json, metadata: Record<string, unknown> | undefined): WorkflowResult {
  const m = result.metadata as Json;
  return { ...result, metadata: { ...metadata, ...m, startTime: new Date(m.startTime), endTime: new Date(m.endTime) } } as WorkflowResult;
}

/** One signal for the run's timeout and the caller's signal; `why` says which, as local mode's error does. */
function stopSignal(options: CloudRunOptions) {
  const controller = new AbortController();
  let timedOut = false;
  if (options.timeout !== undefined && !(Number.isFinite(options.timeout) && options.timeout >= 0)) throw new TypeError(`timeout must be a number of ms >= 0 (got ${options.timeout})`);
  const timer = options.timeout === undefined ? undefined : setTimeout(() => ((timedOut = true), controller.abort()), options.timeout);
  const onAbort = () => controller.abort(options.signal?.reason);
  if (options.signal?.aborted) onAbort();
  options.signal?.addEventListener("abort", onAbort, { once: true });
  return {
    signal: controller.signal,
    why: (): WorkflowError =>
      timedOut
        ? { message: `the workflow timed out after ${options.timeout} ms`, cause: { code: "timeout", timeoutMs: options.timeout } }
        : { message: "the workflow was aborted", cause: options.signal?.reason },
    clear: () => {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
    },
  };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => (signal.removeEventListener("abort", onAbort), resolve()), ms);
    const onAbort = () => (clearTimeout(timer), reject(signal.reason));
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
