// Sends the deliveries emit.ts queued, from the store, so a restart loses nothing: every poll takes
// the pending deliveries that are due, claims each (a compare-and-set on the row, so instances that
// share a database never send one twice at once), POSTs it signed (signing.ts, with the secrets opened by secrets.ts) to the endpoint's URL
// through the SSRF guard (no private address unless cloud.allowPrivateNetworks, no redirect followed,
// a timeout), and writes the attempt: a 2xx succeeds; anything else is retried on RETRY_DELAYS_MS,
// then failed; a 410 Gone disables the endpoint (Standard Webhooks' advice). Finished deliveries are
// deleted after DELIVERY_RETENTION_MS. Time is the Relay's clock, so tests move it; the poll itself
// runs on a real timer.
import type { Config } from "../../config/schema.ts";
import type { AttemptResult, WebhookDelivery, WebhookEndpoint, WebhookStore } from "../../store/webhooks/types.ts";
import type { Clock } from "../limits/clock.ts";
import type { Logger } from "../log.ts";
import { fetchPublic } from "../net/public-url.ts";
import { Poller } from "../poller.ts";
import { forgetEndpoints } from "./emit.ts";
import { sealPlainSecrets, signingSecrets } from "./secrets.ts";
import { webhookHeaders } from "./signing.ts";

/** The wait after each failed attempt (the Standard Webhooks example schedule, cut at 8 attempts over about 27 hours). */
export const RETRY_DELAYS_MS = [5_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 5 * 3_600_000, 10 * 3_600_000, 10 * 3_600_000] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
/** The receiver's time to answer (the spec recommends 15 to 30 s). */
export const TIMEOUT_MS = 15_000;
/** A claim outlives the attempt it covers; a claim whose instance died runs out and the delivery is due again. */
const CLAIM_MS = TIMEOUT_MS * 2;
const POLL_MS = 1_000;
const BATCH = 50;
const MAX_IN_FLIGHT = 64;
/** How long finished deliveries stay listed; the poll deletes older ones, at most once an hour. */
export const DELIVERY_RETENTION_MS = 30 * 86_400_000;
const PRUNE_EVERY_MS = 3_600_000;
/** Of a receiver's answer, only the status matters; a larger body fails the attempt. */
const MAX_ANSWER_BYTES = 1 << 20;

export interface DispatchDeps {
  readonly store: { readonly webhooks: WebhookStore };
  /** Where the master key that opens the signing secrets comes from (src/core/secrets/master-key.ts). */
  readonly env: Record<string, string | undefined>;
  readonly clock: Clock;
  readonly log: Logger;
  config(): Config;
}

export class WebhookDispatcher {
  private readonly poller = new Poller(() => this.poll(), POLL_MS);
  private readonly inFlight = new Set<Promise<void>>();
  private prunedAt = Number.NEGATIVE_INFINITY;
  /** The start's sealing of secrets stored before sealing (secrets.ts). */
  private sealing: Promise<void> | undefined;

  constructor(private readonly deps: DispatchDeps) {}

  private get stopped(): boolean {
    return this.poller.stopped;
  }

  /** Polls from now on (the cloud listener starts it); the first poll sends what a previous process left pending. */
  start(): void {
    if (!this.poller.start()) return;
    this.sealing = sealPlainSecrets(this.deps).then(
      () => undefined,
      (e: unknown) => void (this.stopped || this.deps.log.error("sealing the webhook secrets stored plain failed", { error: e })),
    );
  }

  /** Polls now (new deliveries were queued), or right after the poll that runs. */
  kick(): void {
    this.poller.kick();
  }

  /** Sends what is due now and waits for those attempts (and any running). */
  async flush(): Promise<void> {
    await this.poller.idle();
    await this.poll();
    await Promise.all([...this.inFlight]);
  }

  /** No new attempt from now on; waits for those running. */
  async stop(): Promise<void> {
    const stopping = this.poller.stop();
    await this.sealing;
    await stopping;
    await Promise.all([...this.inFlight]);
  }

  private async poll(): Promise<void> {
    try {
      const now = this.deps.clock.now();
      await this.pruneIfDue(now);
      const room = MAX_IN_FLIGHT - this.inFlight.size;
      if (room <= 0) return;
      for (const d of await this.deps.store.webhooks.dueDeliveries(now, Math.min(BATCH, room))) {
        if (this.stopped) return;
        if (!(await this.deps.store.webhooks.claim(d.id, d.next_attempt_at!, now + CLAIM_MS))) continue;
        const p: Promise<void> = this.attempt(d).finally(() => this.inFlight.delete(p));
        this.inFlight.add(p);
      }
    } catch (e) {
      if (!this.stopped) this.deps.log.error("polling webhook deliveries failed", { error: e });
    }
  }

  private async pruneIfDue(now: number): Promise<void> {
    if (now - this.prunedAt < PRUNE_EVERY_MS) return;
    this.prunedAt = now;
    await this.deps.store.webhooks.pruneDeliveries(now - DELIVERY_RETENTION_MS);
  }

  private async attempt(d: WebhookDelivery): Promise<void> {
    try {
      const endpoint = await this.deps.store.webhooks.getEndpoint(d.endpoint_id);
      const result = endpoint?.enabled ? await this.send(d, endpoint) : this.result(d, null, "the endpoint was removed or disabled", 0, true);
      if (result.attempt.response_status === 410 && endpoint) {
        await this.deps.store.webhooks.disableEndpoint(endpoint.id);
        forgetEndpoints(this.deps, endpoint.team_id);
      }
      await this.deps.store.webhooks.recordAttempt(result);
    } catch (e) {
      // The claim runs out and the delivery is tried again.
      this.deps.log.error("a webhook delivery attempt could not be recorded", { delivery: d.id, error: e });
    }
  }

  private async send(d: WebhookDelivery, endpoint: WebhookEndpoint): Promise<AttemptResult> {
    const now = this.deps.clock.now();
    let secrets: string[];
    try {
      secrets = await signingSecrets(this.deps.env, endpoint, now);
    } catch (e) {
      // Never sent unsigned or signed with garbage: the attempt fails, and is retried on the schedule.
      this.deps.log.error("a webhook signing secret cannot be opened", { endpoint: endpoint.id, error: (e as Error).message });
      return this.result(d, null, "the endpoint's signing secret cannot be decrypted with the server's master key; nothing was sent", 0);
    }
    const headers = { ...(await webhookHeaders(secrets, d.id, Math.floor(now / 1000), d.payload)), "content-type": "application/json", "user-agent": "Relay-Webhooks/1" };
    const started = performance.now();
    let status: number | null = null;
    let error: string | null = null;
    try {
      const allowPrivate = this.deps.config().cloud.allowPrivateNetworks;
      const res = await fetchPublic(endpoint.url, { method: "POST", headers, body: d.payload }, { allowPrivate, parameter: "url", timeoutMs: TIMEOUT_MS, maxBytes: MAX_ANSWER_BYTES });
      status = res.status;
      if (status < 200 || status > 299) error = `the endpoint answered ${status}`;
    } catch (e) {
      error = (e as Error).message;
    }
    return this.result(d, status, error, Math.round(performance.now() - started));
  }

  /** The attempt made now and what follows it: done, retried after its delay, or failed for good. */
  private result(d: WebhookDelivery, status: number | null, error: string | null, durationMs: number, final = false): AttemptResult {
    const at = this.deps.clock.now();
    const n = d.attempts + 1;
    const attempt = { delivery_id: d.id, attempt: n, at, response_status: status, error, duration_ms: durationMs };
    if (error === null) return { attempt, status: "succeeded", next_attempt_at: null };
    return final || n >= MAX_ATTEMPTS || status === 410 ? { attempt, status: "failed", next_attempt_at: null } : { attempt, status: "pending", next_attempt_at: at + RETRY_DELAYS_MS[n - 1]! };
  }
}
