// Provider cooldown (spec §3, §7.2): after `failureThreshold` vendor-side
// failures within `windowMs`, a provider is cooled down for `cooldownMs`;
// calls targeting it get 503 until then.
//
// Chosen recovery: when the cooldown ends the provider is available with a
// clean slate (no remembered failures), as the spec describes ("after the
// period it is available again"). A half-open state — one probe whose single
// failure re-cools — would recover faster from flapping vendors but would
// also re-cool a healthy vendor on one unlucky error; the threshold already
// bounds how much traffic a still-broken vendor can absorb.
//
// Failures reported while cooled down (requests already in flight) are noted
// as the last error but neither count nor extend the cooldown, and a success
// does not end a cooldown early: the period is a fixed back-off.

import type { HealthFacts } from "../../plugin/api.ts";
import { systemClock, type Clock } from "./clock.ts";
import type { HealthFeed } from "./health.ts";

export interface CooldownOptions {
  failureThreshold: number;
  windowMs: number;
  cooldownMs: number;
}

export const DEFAULT_COOLDOWN_OPTIONS: Readonly<CooldownOptions> = {
  failureThreshold: 3,
  windowMs: 60_000,
  cooldownMs: 120_000,
};

export interface ProviderHealthView {
  provider: string;
  state: "available" | "cooled_down";
  recentFailures: number;
  cooldownEndsAt?: number;
  lastError?: string;
  lastFailureAt?: number;
}

interface ProviderHealth {
  /** Failure times inside the window, oldest first; cleared when they reach the threshold. */
  failures: number[];
  cooldownEndsAt?: number;
  lastError?: string;
  lastFailureAt?: number;
}

export class CooldownTracker implements HealthFeed {
  private opts: CooldownOptions;
  private readonly providers = new Map<string, ProviderHealth>();

  constructor(
    options: Partial<CooldownOptions> = {},
    private readonly clock: Clock = systemClock,
  ) {
    this.opts = validate({ ...DEFAULT_COOLDOWN_OPTIONS, ...options });
  }

  get options(): Readonly<CooldownOptions> {
    return this.opts;
  }

  /** Change any option at runtime; applies to failures and cooldowns from now on. */
  setOptions(options: Partial<CooldownOptions>): void {
    this.opts = validate({ ...this.opts, ...options });
  }

  /** Count a vendor-side failure. Returns true when this failure started a cooldown. */
  recordFailure(provider: string, reason: string): boolean {
    const now = this.clock.now();
    const health = this.providers.get(provider) ?? this.create(provider);
    this.refresh(health, now);
    health.lastError = reason;
    health.lastFailureAt = now;
    if (health.cooldownEndsAt !== undefined) return false;
    health.failures.push(now);
    if (health.failures.length < this.opts.failureThreshold) return false;
    health.cooldownEndsAt = now + this.opts.cooldownMs;
    health.failures.length = 0;
    return true;
  }

  /** A successful call clears the failures counted so far (not an active cooldown). */
  recordSuccess(provider: string): void {
    const health = this.providers.get(provider);
    if (health !== undefined) health.failures.length = 0;
  }

  isCooledDown(provider: string): boolean {
    return this.cooldownEndsAt(provider) !== undefined;
  }

  /** End of the active cooldown (ms since the epoch), or undefined when available. */
  cooldownEndsAt(provider: string): number | undefined {
    const endsAt = this.providers.get(provider)?.cooldownEndsAt;
    return endsAt !== undefined && this.clock.now() < endsAt ? endsAt : undefined;
  }

  /** What this tracker knows of a provider, for StrategyContext.health; undefined when it has reported nothing. */
  providerFacts(provider: string): HealthFacts | undefined {
    const h = this.providers.get(provider);
    if (h === undefined) return undefined;
    this.refresh(h, this.clock.now());
    return {
      coolingDown: h.cooldownEndsAt !== undefined,
      recentFailures: h.failures.length,
      ...(h.cooldownEndsAt !== undefined && { cooldownEndsAt: h.cooldownEndsAt }),
      ...(h.lastError !== undefined && { lastError: h.lastError }),
      ...(h.lastFailureAt !== undefined && { lastFailureAt: h.lastFailureAt }),
    };
  }

  /** Every provider that has reported anything, for the dashboard and the admin API. */
  snapshot(): ProviderHealthView[] {
    const now = this.clock.now();
    const views: ProviderHealthView[] = [];
    for (const [provider, h] of this.providers) {
      this.refresh(h, now);
      views.push({
        provider,
        state: h.cooldownEndsAt === undefined ? "available" : "cooled_down",
        recentFailures: h.failures.length,
        ...(h.cooldownEndsAt === undefined ? {} : { cooldownEndsAt: h.cooldownEndsAt }),
        ...(h.lastError === undefined ? {} : { lastError: h.lastError }),
        ...(h.lastFailureAt === undefined ? {} : { lastFailureAt: h.lastFailureAt }),
      });
    }
    return views;
  }

  private create(provider: string): ProviderHealth {
    const health: ProviderHealth = { failures: [] };
    this.providers.set(provider, health);
    return health;
  }

  /** Bring a provider's state up to `now`: an elapsed cooldown is cleared, failures outside the window dropped. */
  private refresh(health: ProviderHealth, now: number): void {
    if (health.cooldownEndsAt !== undefined && now >= health.cooldownEndsAt) {
      health.cooldownEndsAt = undefined;
      health.failures.length = 0;
    }
    const cutoff = now - this.opts.windowMs;
    let expired = 0;
    while (expired < health.failures.length && health.failures[expired] <= cutoff) expired++;
    if (expired > 0) health.failures.splice(0, expired);
  }
}

function validate(o: CooldownOptions): CooldownOptions {
  if (!Number.isInteger(o.failureThreshold) || o.failureThreshold < 1) {
    throw new RangeError(`failureThreshold must be a positive integer, got ${o.failureThreshold}`);
  }
  if (!(o.windowMs > 0)) throw new RangeError(`windowMs must be > 0, got ${o.windowMs}`);
  if (!(o.cooldownMs >= 0)) throw new RangeError(`cooldownMs must be >= 0, got ${o.cooldownMs}`);
  return o;
}
