// What the built-in strategies make of the mesh's reports (StrategyContext.health.shared, fed by
// other proxies' outcomes when mesh.enabled): a model failing across the mesh is demoted (complexity)
// or skipped (cascade), and the cheapest model meeting the success bar for the request's bucket is
// preferred. Each change says why in the plan's reasons (x-svc-routing-reasons). Public plugin API only.
import type { ModelInfo, SharedFacts, StrategyContext } from "../plugin/api.ts";

const percent = (rate: number) => `${Math.round(rate * 100)}%`;
const price = (m: ModelInfo): number => (m.price ? m.price.input + m.price.output : Number.POSITIVE_INFINITY);

/**
 * The request's bucket, made on first use: a plan without mesh reports (the mesh off) never
 * estimates the request's size for it.
 */
export type Bucket = () => string;

export function lazyBucket(make: () => string): Bucket {
  let bucket: string | undefined;
  return () => (bucket ??= make());
}

/** The model's mesh facts when they say it fails: over the bucket if reported there, else over all. */
function failing(model: ModelInfo, bucket: Bucket, ctx: StrategyContext): SharedFacts | undefined {
  const overall = ctx.health.shared?.(model);
  if (!overall) return undefined;
  const facts = ctx.health.shared?.(model, bucket()) ?? overall;
  return facts.meetsBar ? undefined : facts;
}

const failingReason = (model: ModelInfo, f: SharedFacts) => `mesh: ${model.id} failing (${f.errors}/${f.requests} errors)`;

/** Models failing across the mesh go last, in their order; the rest keep theirs. */
export function demoteFailing(models: ModelInfo[], bucket: Bucket, ctx: StrategyContext, reasons: string[]): ModelInfo[] {
  const ok: ModelInfo[] = [];
  const bad: ModelInfo[] = [];
  for (const m of models) {
    const f = failing(m, bucket, ctx);
    if (f) reasons.push(failingReason(m, f));
    (f ? bad : ok).push(m);
  }
  return bad.length ? [...ok, ...bad] : models;
}

/** Models failing across the mesh are left out, unless that leaves none. */
export function skipFailing(models: ModelInfo[], bucket: Bucket, ctx: StrategyContext, reasons: string[]): ModelInfo[] {
  const notes: string[] = [];
  const kept = models.filter((m) => {
    const f = failing(m, bucket, ctx);
    if (f) notes.push(`${failingReason(m, f)}: skipped`);
    return !f;
  });
  if (kept.length === 0) return models;
  reasons.push(...notes);
  return kept;
}

/**
 * The cheapest of `models` whose success rate for the bucket meets the bar moves to the front, when
 * the mesh has enough reports of it there; the others keep their order.
 */
export function preferProven(models: ModelInfo[], bucket: Bucket, ctx: StrategyContext, reasons: string[]): ModelInfo[] {
  let best: { model: ModelInfo; facts: SharedFacts } | undefined;
  for (const m of models) {
    const facts = ctx.health.shared?.(m) && ctx.health.shared?.(m, bucket());
    if (facts?.meetsBar && (!best || price(m) < price(best.model))) best = { model: m, facts };
  }
  if (!best || best.model === models[0]) return models;
  const { model, facts } = best;
  reasons.push(`mesh: prefers ${model.id}, the cheapest meeting the bar for ${bucket()} (${percent(facts.successRate)} of ${facts.requests})`);
  return [model, ...models.filter((m) => m !== model)];
}
