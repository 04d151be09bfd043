// Outbound webhooks of the hosted API (issue 37 item 5, src/core/webhooks/): a team's endpoints, and
// the deliveries of its events to them, each a row the dispatcher claims, sends and retries, so a
// restart loses nothing and several instances on one database never send a delivery twice at once.

export interface WebhookEndpoint {
  /** `we_…` */
  id: string;
  team_id: string;
  url: string;
  /** The event types it receives (src/core/webhooks/events.ts). */
  events: string[];
  description: string;
  /**
   * What deliveries are signed with (`whsec_…`), sealed under the master key (src/core/webhooks/secrets.ts):
   * an HMAC key cannot be stored as a hash. Rows written before sealing hold it plain until sealed.
   */
  secret: string;
  /** The secret a rotation replaced (sealed the same way), still signed with (beside the new one) until `previous_secret_expires_at` (ms). */
  previous_secret: string | null;
  previous_secret_expires_at: number | null;
  /** False once the receiver answered 410 Gone: nothing more is sent to it. */
  enabled: boolean;
  /** ISO 8601. */
  created_at: string;
}

export type DeliveryStatus = "pending" | "succeeded" | "failed";

export interface WebhookDelivery {
  /** `msg_…`: the `webhook-id` header, the same on every attempt. */
  id: string;
  endpoint_id: string;
  team_id: string;
  event_type: string;
  /** The JSON body sent, exactly as signed. */
  payload: string;
  status: DeliveryStatus;
  /** Attempts made so far. */
  attempts: number;
  /** When the next attempt is due (ms); null once succeeded or failed. While an attempt runs, the end of its claim. */
  next_attempt_at: number | null;
  /** The last attempt's HTTP status, if the receiver answered. */
  last_status: number | null;
  last_error: string | null;
  /** ms since the epoch. */
  created_at: number;
  updated_at: number;
}

export interface DeliveryAttempt {
  delivery_id: string;
  /** 1 for the first attempt. */
  attempt: number;
  /** ms since the epoch. */
  at: number;
  response_status: number | null;
  error: string | null;
  duration_ms: number;
}

/** An attempt's outcome, written with the attempt: the delivery's next state. */
export interface AttemptResult {
  attempt: DeliveryAttempt;
  status: DeliveryStatus;
  next_attempt_at: number | null;
}

export interface WebhookStore {
  insertEndpoint(e: WebhookEndpoint): Promise<void>;
  getEndpoint(id: string): Promise<WebhookEndpoint | undefined>;
  /** A team's endpoints, oldest first. */
  listEndpoints(teamId: string): Promise<WebhookEndpoint[]>;
  /** Removes the endpoint with its deliveries and their attempts; false when there was none. */
  deleteEndpoint(id: string): Promise<boolean>;
  /** A new secret; the old one signs beside it until `previousExpiresAt`. */
  rotateSecret(id: string, secret: string, previousExpiresAt: number): Promise<void>;
  disableEndpoint(id: string): Promise<void>;
  /** Endpoints whose secret or previous secret is not sealed yet (rows written before sealing). */
  endpointsWithPlainSecrets(): Promise<WebhookEndpoint[]>;
  /** Replaces a secret column's value `from` by `to`; false when it holds something else by now (a rotation ran). */
  replaceSecret(id: string, column: "secret" | "previous_secret", from: string, to: string): Promise<boolean>;

  insertDeliveries(ds: WebhookDelivery[]): Promise<void>;
  getDelivery(id: string): Promise<WebhookDelivery | undefined>;
  /** An endpoint's deliveries, newest first, each with its attempts (oldest first). */
  listDeliveries(endpointId: string, limit: number, offset: number): Promise<{ deliveries: (WebhookDelivery & { attempt_log: DeliveryAttempt[] })[]; total: number }>;
  /** Pending deliveries due at `now`, oldest due first. */
  dueDeliveries(now: number, limit: number): Promise<WebhookDelivery[]>;
  /**
   * Claims a due delivery for one attempt: moves its next_attempt_at from `seen` to `until` only if
   * no one else did first (a compare-and-set), so one instance sends it; a claim whose holder died
   * runs out at `until` and the delivery is due again.
   */
  claim(id: string, seen: number, until: number): Promise<boolean>;
  /** Records an attempt and the delivery's next state. */
  recordAttempt(r: AttemptResult): Promise<void>;
  /** A failed delivery due again at `at` (a manual retry); false when it is not failed. */
  retryDelivery(id: string, at: number): Promise<boolean>;
  /** Deletes finished (succeeded or failed) deliveries last updated before `before`, with their attempts; returns how many. */
  pruneDeliveries(before: number): Promise<number>;
}
