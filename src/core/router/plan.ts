// Turns the model a client asked for into an ordered list of candidate models:
// a virtual model (`svc:auto`) goes to the strategy that answers to it; a
// concrete model goes to the configured override strategy or to the one that
// declares `servesConcreteModels` (the built-in `fallback`).
import type { ModelInfo, RoutePlan, StrategyContext, StrategyPlugin, WireFormat } from "../../plugin/api.ts";
import { HttpError } from "../errors.ts";
import type { ChatRequest } from "../ir.ts";
import { approxTextTokens, estimateTokens } from "../tokens.ts";
import { needsKey, providerKey } from "./credentials.ts";
import type { RouterDeps } from "./deps.ts";

export interface Routing {
  strategy: string;
  plan: RoutePlan;
  candidates: ModelInfo[];
  judge?: StrategyPlugin["judge"];
}

export interface PlanInput {
  request: ChatRequest;
  requestedModel: string;
  clientFormat: WireFormat;
  headers: Headers;
  /** /v1/messages serves first-vendor models only. */
  anthropicOnly: boolean;
  /** The provider the client brought its own credential for (Anthropic's, on /v1/messages). */
  clientCredentialFor?: string;
}

export function modelNotFound(deps: RouterDeps, name: string): HttpError {
  return new HttpError(400, "model_not_found", "Model not found", {
    suggestions: deps.catalog.suggest(name, 5),
    details: { parameter: "model", provided: name, expected: "a model id, alias or virtual model (GET /v1/models)" },
  });
}

const nativeOnly = () =>
  new HttpError(400, "invalid_request", "Native /v1/messages only supports Anthropic models; use /v1/chat/completions for other vendors", {
    details: { parameter: "model", expected: "an Anthropic model" },
  });

export function isAvailable(deps: RouterDeps, model: ModelInfo, input?: Pick<PlanInput, "clientCredentialFor">): boolean {
  const p = deps.registry.providers.get(model.provider);
  if (!p || deps.config().providers[p.name]?.enabled === false) return false;
  if (deps.health.model(model).coolingDown) return false;
  if (!needsKey(p)) return true;
  if (input?.clientCredentialFor === p.name) return true;
  return providerKey(p, deps.config(), deps.env) !== undefined;
}

function concreteStrategy(deps: RouterDeps, override: string): StrategyPlugin {
  if (override) {
    const strategy = deps.registry.strategies.get(override);
    if (!strategy) throw new HttpError(500, "strategy_missing", `Routing strategy "${override}" is not loaded`);
    return strategy;
  }
  const strategy = deps.registry.concreteStrategy();
  if (!strategy) throw new HttpError(500, "strategy_missing", "No loaded strategy serves concrete model names (a strategy plugin declares servesConcreteModels)");
  return strategy;
}

/**
 * A strategy without options in config gets the same empty object on every request, like
 * configured options (plugins memoise what they parse per options object). One per strategy,
 * so a plugin that writes to its options cannot reach another's.
 */
const noOptions = new WeakMap<StrategyPlugin, Record<string, unknown>>();
function emptyOptionsOf(strategy: StrategyPlugin): Record<string, unknown> {
  let o = noOptions.get(strategy);
  if (!o) noOptions.set(strategy, (o = {}));
  return o;
}

/** Whether `list` already holds `m` (by provider and id: two names may resolve to one model). */
function holds(list: ModelInfo[], m: ModelInfo): boolean {
  for (const x of list) if (x.id === m.id && x.provider === m.provider) return true;
  return false;
}

/** The target model is not chosen yet when a strategy plans: the vendor-neutral approximation. */
const neutralEstimate = (req: ChatRequest): number => estimateTokens(req, approxTextTokens);

/**
 * Synchronous for synchronous strategies (every built-in one): a promise only when a plugin's
 * plan() returns one, so the common request spends no async frame or tick here.
 */
export function planRoute(deps: RouterDeps, input: PlanInput): Routing | Promise<Routing> {
  const config = deps.config();
  const name = input.requestedModel;
  const virtual = deps.registry.strategyForModel(name);

  if (!deps.control.routingEnabled) {
    // Disabled: pure passthrough to the model asked for.
    if (virtual) throw new HttpError(400, "routing_disabled", `Routing is disabled; virtual model ${name} cannot be served`);
    const model = deps.catalog.resolve(name);
    if (!model) throw modelNotFound(deps, name);
    if (input.anthropicOnly && model.provider !== "anthropic") throw nativeOnly();
    return { strategy: "passthrough", plan: { candidates: [model.id], mode: "fallback", reasons: ["routing disabled"] }, candidates: [model] };
  }

  let strategy = virtual;
  if (!strategy) {
    const model = deps.catalog.resolve(name);
    if (!model) throw modelNotFound(deps, name);
    if (input.anthropicOnly && model.provider !== "anthropic") throw nativeOnly();
    strategy = concreteStrategy(deps, config.routing.override);
  }
  // A strategy that needs whole answers (cascade judges them) hands streams to its declared stand-in (spec §3).
  if (input.request.stream) strategy = deps.registry.streamStrategy(strategy);

  const ctx: StrategyContext = {
    // An own property only, as src/plugin/options.ts checks: a strategy named `constructor` gets its options, not Object's.
    options: Object.hasOwn(config.routing.strategies, strategy.name) ? config.routing.strategies[strategy.name]! : emptyOptionsOf(strategy),
    catalog: deps.catalog,
    isAvailable: (m) => isAvailable(deps, m, input) && (!input.anthropicOnly || m.provider === "anthropic"),
    health: deps.health,
    estimateTokens: neutralEstimate,
  };
  const planned = strategy.plan({ request: input.request, requestedModel: name, clientFormat: input.clientFormat, headers: input.headers }, ctx);
  const chosen = strategy;
  return planned instanceof Promise ? planned.then((plan) => routingOf(deps, input, chosen, plan)) : routingOf(deps, input, chosen, planned);
}

/** The plan's candidates resolved in the catalog: unknown names dropped (and logged), duplicates once. */
function routingOf(deps: RouterDeps, input: PlanInput, strategy: StrategyPlugin, plan: RoutePlan): Routing {
  const name = input.requestedModel;
  const candidates: ModelInfo[] = [];
  for (const c of plan.candidates) {
    const m = deps.catalog.resolve(c);
    if (!m) {
      deps.log.warn("strategy proposed an unknown model", { strategy: strategy.name, model: c });
      continue;
    }
    if ((input.anthropicOnly && m.provider !== "anthropic") || holds(candidates, m)) continue;
    candidates.push(m);
  }
  if (candidates.length === 0) {
    if (input.anthropicOnly && plan.candidates.length) throw nativeOnly();
    throw new HttpError(503, "no_candidate", `No model available for ${name}: ${plan.reasons.join("; ") || "the strategy proposed none"}`);
  }
  return { strategy: strategy.name, plan, candidates, judge: plan.mode === "cascade" ? strategy.judge : undefined };
}
