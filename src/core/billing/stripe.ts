// The hosted plans' billing through Stripe (issue 38 item 7; README "Billing"): the official stripe
// SDK, pointed at cloud.billing.stripeApiBase (its host, port and protocol options), so a deployment
// may put a proxy in front of Stripe and a test a local fake that speaks Stripe's wire format.
import type Stripe from "stripe";
import type { Config } from "../../config/schema.ts";
import { CoreError } from "../errors.ts";
import type { Clock } from "../limits/clock.ts";
import type { Logger } from "../log.ts";
import type { BillingStore } from "../../store/billing/types.ts";
import type { TeamStore } from "../../store/teams/types.ts";

export type BillingConfig = Config["cloud"]["billing"];
export type StripeSdk = typeof Stripe;

export interface BillingDeps {
  config(): Config;
  readonly clock: Clock;
  readonly log: Logger;
  readonly store: { readonly billing: BillingStore; readonly teams: TeamStore };
}

let sdk: Promise<StripeSdk> | undefined;
/** The SDK, loaded at the first billing call: its import (~150 ms, ~10 MB) is no cost to a process that never bills. */
export const stripeSdk = (): Promise<StripeSdk> => (sdk ??= import("stripe").then((m) => m.default));

/** The billing settings in force; 503 billing_not_configured without a secret key. */
export function billingSettings(deps: BillingDeps): BillingConfig & { secretKey: string } {
  const settings = deps.config().cloud.billing;
  if (!settings.secretKey) throw notConfigured("cloud.billing.secretKey (env STRIPE_SECRET_KEY)");
  return settings as BillingConfig & { secretKey: string };
}

// One client per billing settings object: a config reload brings new settings and so a new client.
const clients = new WeakMap<BillingConfig, Stripe>();

/** The Stripe client of the settings in force. */
export async function stripeOf(deps: BillingDeps): Promise<Stripe> {
  const settings = billingSettings(deps);
  const StripeClient = await stripeSdk();
  let stripe = clients.get(settings);
  if (!stripe) {
    const base = new URL(settings.stripeApiBase);
    const protocol = base.protocol === "http:" ? "http" : "https";
    stripe = new StripeClient(settings.secretKey, {
      host: base.hostname,
      port: Number(base.port) || (protocol === "http" ? 80 : 443),
      protocol,
      // fetch, not node:http: the runtime's own client (the SDK's Bun build picks it too).
      httpClient: StripeClient.createFetchHttpClient(),
      telemetry: false,
      appInfo: { name: "relay" },
    });
    clients.set(settings, stripe);
  }
  return stripe;
}

export const notConfigured = (what: string) =>
  new CoreError(503, "billing_not_configured", `billing is not configured on this server (${what} is unset); ask its operator`);

/** `call`'s answer; a Stripe refusal or an unreachable Stripe is logged and answered as a 502 that names no internals. */
export async function callStripe<T>(deps: BillingDeps, what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (e) {
    const code = e instanceof (await stripeSdk()).errors.StripeError ? (e.code ?? e.type) : "unreachable";
    deps.log.error(`Stripe could not ${what}`, { error: e, code });
    throw new CoreError(502, "payment_provider_error", `Stripe could not ${what} (${code}); the server's log has the details`);
  }
}
