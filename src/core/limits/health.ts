// Model and provider health as strategies see it (StrategyContext.health): one view that any number
// of sources feed (the local cooldown tracker today; outcomes shared between proxies later), so a
// new source needs no path of its own into the router.
import type { HealthFacts, HealthView, ModelInfo, SharedFacts } from "../../plugin/api.ts";

/** A source of health facts; undefined means it knows nothing of that provider or model. */
export interface HealthFeed {
  providerFacts?(name: string): HealthFacts | undefined;
  modelFacts?(model: ModelInfo): HealthFacts | undefined;
  /** What other proxies reported (the mesh: src/core/mesh/board.ts). */
  sharedFacts?(model: ModelInfo, bucket?: string): SharedFacts | undefined;
}

/** Nothing reported: one shared object, so a healthy lookup allocates nothing. */
export const HEALTHY: HealthFacts = Object.freeze({ coolingDown: false, recentFailures: 0 });

export class HealthBoard implements HealthView {
  constructor(private readonly sources: readonly HealthFeed[]) {}

  provider(name: string): HealthFacts {
    let facts: HealthFacts | undefined;
    for (const s of this.sources) facts = merge(facts, s.providerFacts?.(name));
    return facts ?? HEALTHY;
  }

  model(model: ModelInfo): HealthFacts {
    let facts: HealthFacts | undefined;
    for (const s of this.sources) facts = merge(merge(facts, s.providerFacts?.(model.provider)), s.modelFacts?.(model));
    return facts ?? HEALTHY;
  }

  /** The first source that has reports of the model (one mesh today). */
  shared(model: ModelInfo, bucket?: string): SharedFacts | undefined {
    for (const s of this.sources) {
      const facts = s.sharedFacts?.(model, bucket);
      if (facts) return facts;
    }
    return undefined;
  }
}

/** Cooling down if any source says so, until the latest end; failures add up; the latest error is kept. */
function merge(a: HealthFacts | undefined, b: HealthFacts | undefined): HealthFacts | undefined {
  if (a === undefined || b === undefined) return a ?? b;
  const latest = (b.lastFailureAt ?? 0) > (a.lastFailureAt ?? 0) ? b : a;
  const endsAt = Math.max(a.cooldownEndsAt ?? 0, b.cooldownEndsAt ?? 0);
  return {
    coolingDown: a.coolingDown || b.coolingDown,
    recentFailures: a.recentFailures + b.recentFailures,
    ...(endsAt > 0 && { cooldownEndsAt: endsAt }),
    ...(latest.lastError !== undefined && { lastError: latest.lastError }),
    ...(latest.lastFailureAt !== undefined && { lastFailureAt: latest.lastFailureAt }),
  };
}
