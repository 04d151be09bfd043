// Complexity-based routing: `svc:auto` scores the request and picks a tier's model;
// `svc:fast`, `svc:best` and `svc:cheap` pin the choice without scoring.

import { definePlugin, requestBucket, type Static, Type } from "../../plugin/api.ts";
import type { CatalogView, ModelInfo, RouteInput, RoutePlan, StrategyContext, Tier } from "../../plugin/api.ts";
import { covers, modelRef, requiredCapabilities, type Need } from "./candidates.ts";
import { DEFAULT_THRESHOLDS, scoreRequest, type Thresholds } from "./score.ts";
import { defaultLadders, TIERS } from "../ladders.ts";
import { type Bucket, demoteFailing, lazyBucket, preferProven } from "../mesh.ts";
import { oncePer } from "../once-per.ts";

// A Map: it is looked up by the client's model name, which may be `constructor`.
const PINNED_TIER: ReadonlyMap<string, Tier> = new Map([["svc:fast", "simple"], ["svc:best", "complex"]]);

const ModelName = Type.String({ minLength: 1 });
const Threshold = Type.Number({ description: "score at or above which a request is in this tier" });
const ComplexityOptionsSchema = Type.Object(
  {
    tiers: Type.Optional(
      Type.Object({ simple: Type.Optional(ModelName), moderate: Type.Optional(ModelName), complex: Type.Optional(ModelName) }, { additionalProperties: false }),
    ),
    thresholds: Type.Optional(Type.Object({ moderate: Type.Optional(Threshold), complex: Type.Optional(Threshold) }, { additionalProperties: false })),
  },
  { additionalProperties: false },
);
type Configured = Static<typeof ComplexityOptionsSchema>;

/** The options with the thresholds' defaults filled in; a tier named by none follows the providers' ladders. */
interface ComplexityOptions {
  tiers: Partial<Record<Tier, string>>;
  thresholds: Thresholds;
}

const withDefaults = (o: Configured): ComplexityOptions => ({
  tiers: o.tiers ?? {},
  thresholds: { ...DEFAULT_THRESHOLDS, ...o.thresholds },
});

/** The one rule the schema cannot express. */
function checkOptions(o: Configured): string | undefined {
  const { moderate, complex } = withDefaults(o).thresholds;
  return moderate > complex ? `thresholds.moderate (${moderate}) must not exceed thresholds.complex (${complex})` : undefined;
}

/** A routable model with its ref, so a plan builds no strings for it. */
interface Routable {
  model: ModelInfo;
  ref: string;
}

/** The catalog's routable models grouped the way plans read them, built once per catalog version. */
interface RoutableIndex {
  byTier: Record<Tier, Routable[]>;
  /** Cheapest first (a stable sort, so catalog order among equals); models without a known price last. */
  byPrice: Routable[];
}

const totalPrice = (m: ModelInfo): number => (m.price ? m.price.input + m.price.output : Number.POSITIVE_INFINITY);

function buildIndex(models: readonly ModelInfo[]): RoutableIndex {
  const all = models.map((model) => ({ model, ref: modelRef(model) }));
  const inTier = (tier: Tier) => all.filter((r) => r.model.tier === tier);
  return {
    byTier: { simple: inTier("simple"), moderate: inTier("moderate"), complex: inTier("complex") },
    byPrice: [...all].sort((a, b) => totalPrice(a.model) - totalPrice(b.model)),
  };
}

// Keyed by the catalog's routable array, which a changed or rebuilt catalog replaces.
// Availability changes by the minute (cooldowns, keys), so it is checked per plan.
const indexFor = oncePer(buildIndex);
const routableIndex = (ctx: StrategyContext): RoutableIndex => indexFor(ctx.catalog.routableModels());

const usable = (model: ModelInfo, needs: Need[], ctx: StrategyContext): boolean => ctx.isAvailable(model) && covers(model, needs);

/**
 * Each tier's candidates before availability and capabilities are checked: its model, the next
 * tier's, then the other routable models hinted at the tier; each once. An unconfigured tier's model
 * is each provider's (its ladder's), so the first provider with a key serves it. They depend only
 * on the options and the catalog, so they are built once per pair and a plan only filters them.
 */
type TierLists = Record<Tier, Routable[]>;

/** The tier's configured model, or else every provider's model for it, in ladder order. */
function tierModels(tier: Tier, opts: ComplexityOptions, catalog: CatalogView): ModelInfo[] {
  const name = opts.tiers[tier];
  if (name === undefined) return defaultLadders(catalog).flatMap((l) => l.byTier[tier] ?? []);
  const model = catalog.resolve(name);
  return model ? [model] : [];
}

/** The tier's model then the next tier's; with neither configured, per provider (Haiku, Sonnet, then gpt-5-nano, gpt-5-mini, …). */
function tierHead(tier: Tier, opts: ComplexityOptions, catalog: CatalogView): ModelInfo[] {
  const next = TIERS[TIERS.indexOf(tier) + 1];
  if (!next) return tierModels(tier, opts, catalog);
  if (opts.tiers[tier] === undefined && opts.tiers[next] === undefined)
    return defaultLadders(catalog).flatMap((l) => [l.byTier[tier], l.byTier[next]].filter((m) => m !== undefined));
  return [...tierModels(tier, opts, catalog), ...tierModels(next, opts, catalog)];
}

function buildTierLists(opts: ComplexityOptions, catalog: CatalogView): TierLists {
  const index = indexFor(catalog.routableModels());
  const listFor = (tier: Tier): Routable[] => {
    const list: Routable[] = tierHead(tier, opts, catalog).map((model) => ({ model, ref: modelRef(model) }));
    list.push(...index.byTier[tier]);
    return list.filter((r, i) => list.findIndex((o) => o.ref === r.ref) === i);
  };
  return { simple: listFor("simple"), moderate: listFor("moderate"), complex: listFor("complex") };
}

// Per options object, rebuilt when the catalog's routable array is replaced (a changed catalog
// replaces it, and with it what configured names resolve to).
const tierListCache = new WeakMap<ComplexityOptions, { routable: readonly ModelInfo[]; lists: TierLists }>();

function tierLists(opts: ComplexityOptions, catalog: CatalogView): TierLists {
  const routable = catalog.routableModels();
  let cached = tierListCache.get(opts);
  if (cached?.routable !== routable) tierListCache.set(opts, (cached = { routable, lists: buildTierLists(opts, catalog) }));
  return cached.lists;
}

/**
 * The tier's configured model, the next tier up, then other routable models hinted at this tier;
 * reordered by the mesh's reports (../mesh.ts), which add their reasons.
 */
function tierCandidates(tier: Tier, opts: ComplexityOptions, needs: Need[], ctx: StrategyContext, bucket: Bucket, reasons: string[]): string[] {
  const models: ModelInfo[] = [];
  for (const { model } of tierLists(opts, ctx.catalog)[tier]) if (usable(model, needs, ctx)) models.push(model);
  return preferProven(demoteFailing(models, bucket, ctx, reasons), bucket, ctx, reasons).map(modelRef);
}

/** Every capable model, cheapest first (models without a known price last); those failing across the mesh after the rest. */
function cheapestCandidates(needs: Need[], ctx: StrategyContext, bucket: Bucket, reasons: string[]): string[] {
  const models = routableIndex(ctx).byPrice.filter(({ model }) => usable(model, needs, ctx)).map(({ model }) => model);
  return demoteFailing(models, bucket, ctx, reasons).map(modelRef);
}

function needsReason(needs: Need[]): string[] {
  return needs.length ? [`needs: ${needs.join(", ")}`] : [];
}

// Config is replaced whole on change, so each options object gets its defaults once.
const optionsOf = oncePer(withDefaults);

function plan(input: RouteInput, ctx: StrategyContext<Configured>): RoutePlan {
  const opts = optionsOf(ctx.options);
  const needs = requiredCapabilities(input.request);
  const model = input.requestedModel;

  const bucket = (tier: Tier | undefined) => lazyBucket(() => requestBucket(tier, ctx.estimateTokens(input.request)));

  if (model === "svc:cheap") {
    const reasons = ["svc:cheap: cheapest capable model first", ...needsReason(needs)];
    const candidates = cheapestCandidates(needs, ctx, bucket(undefined), reasons);
    return { candidates, mode: "fallback", reasons };
  }

  const pinned = PINNED_TIER.get(model);
  if (pinned) {
    const reasons = [`${model}: ${pinned} tier`, ...needsReason(needs)];
    const candidates = tierCandidates(pinned, opts, needs, ctx, bucket(pinned), reasons);
    return { candidates, mode: "fallback", tier: pinned, reasons };
  }

  const scored = scoreRequest(input.request, { thresholds: opts.thresholds });
  // The score's own reasons array is fresh per request: the summary goes in front of it.
  const reasons = scored.reasons;
  reasons.unshift(`${scored.tier} tier (score ${scored.score.toFixed(2)})`);
  reasons.push(...needsReason(needs));
  const candidates = tierCandidates(scored.tier, opts, needs, ctx, bucket(scored.tier), reasons);
  return { candidates, mode: "fallback", tier: scored.tier, reasons };
}

export default definePlugin({
  kind: "strategy",
  name: "complexity",
  description: "Scores each request and routes it to the simple, moderate or complex tier's model",
  models: ["svc:auto", "svc:fast", "svc:cheap", "svc:best"],
  modelDescriptions: {
    "svc:auto": "Scores each request (size, code, math and reasoning cues, tools, images) and routes it to the simple, moderate or complex tier's model",
    "svc:fast": "The simple tier's model (fast and cheap), without scoring",
    "svc:best": "The complex tier's model (the strongest), without scoring",
    "svc:cheap": "The cheapest available model that can serve the request (tools, images, JSON)",
  },
  options: ComplexityOptionsSchema,
  checkOptions,
  plan,
});
