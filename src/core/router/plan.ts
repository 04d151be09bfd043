// Turns the model a client asked for into an ordered list of candidate models:
// a virtual model (`svc:auto`) goes to the strategy that answers to it; a
// concrete model goes to the configured override strategy or to the one that
// declares `servesConcreteModels` (the built-in `fallback`).
import type { ModelInfo, RoutePlan, StrategyContext, StrategyPlugin, WireFormat } from "../../plugin/api.ts";
import { CoreError } from "../errors.ts";
import type { ChatRequest } from "../ir.ts";
import { approxTextTokens, estimateTokens } from "../tokens.ts";
import type { ProviderKeys } from "./call.ts";
import { providerReady } from "./credentials.ts";
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
  /** A concrete model must be one whose provider speaks clientFormat; the refusal's message otherwise (RouteCall.nativeOnly). */
  nativeOnly?: string;
  /** The provider the client brought its own credential for (Anthropic's, on /v1/messages). */
  clientCredentialFor?: string;
  /** The caller's own keys by provider (Caller.credentials). */
  credentials?: ProviderKeys;
}

export function modelNotFound(deps: RouterDeps, name: string): CoreError {
  return new CoreError(400, "model_not_found", "Model not found", {
    suggestions: deps.catalog.suggest(name, 5),
    details: { parameter: "model", provided: name, expected: "a model id, alias or virtual model (GET /v1/models)" },
  });
}

const notNative = (input: PlanInput) =>
  new CoreError(400, "invalid_request", input.nativeOnly!, { details: { parameter: "model", expected: `a model served in the ${input.clientFormat} format` } });

/** Whether a native-only call may go to `model`: its provider speaks the call's format. */
function speaksFormat(deps: RouterDeps, input: PlanInput, model: ModelInfo): boolean {
  return input.nativeOnly === undefined || deps.registry.providers.get(model.provider)?.format === input.clientFormat;
}

export function isAvailable(deps: RouterDeps, model: ModelInfo, input?: Pick<PlanInput, "clientCredentialFor" | "credentials">): boolean {
  const p = deps.registry.providers.get(model.provider);
  if (!p || deps.health.model(model).coolingDown) return false;
  return providerReady(p, deps.config(), deps.env, input?.clientCredentialFor, input?.credentials);
}

function concreteStrategy(deps: RouterDeps, override: string): StrategyPlugin {
  if (override) {
    const strategy = deps.registry.strategies.get(override);
    if (!strategy) throw new CoreError(500, "strategy_missing", `Routing strategy "${override}" is not loaded`);
    return strategy;
  }
  const strategy = deps.registry.concreteStrategy();
  if (!strategy) throw new CoreError(500, "strategy_missing", "No loaded strategy serves concrete model names (a strategy plugin declares servesConcreteModels)");
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
  // nativeOnly refuses a concrete model of another format; a virtual model's strategy may route the
  // call to any vendor (Claude Code on /v1/messages with svc:auto), translated there and back.
  if (virtual && input.nativeOnly !== undefined) input = { ...input, nativeOnly: undefined };

  if (!deps.control.routingEnabled) {
    // Disabled: pure passthrough to the model asked for.
    if (virtual) throw new CoreError(400, "routing_disabled", `Routing is disabled; virtual model ${name} cannot be served`);
    const model = deps.catalog.resolve(name);
    if (!model) throw modelNotFound(deps, name);
    if (!speaksFormat(deps, input, model)) throw notNative(input);
    return { strategy: "passthrough", plan: { candidates: [model.id], mode: "fallback", reasons: ["routing disabled"] }, candidates: [model] };
  }

  let strategy = virtual;
  if (!strategy) {
    const model = deps.catalog.resolve(name);
    if (!model) throw modelNotFound(deps, name);
    if (!speaksFormat(deps, input, model)) throw notNative(input);
    strategy = concreteStrategy(deps, config.routing.override);
  }
  // A strategy that needs whole answers (cascade judges them) hands streams to its declared stand-in (spec §3).
  if (input.request.stream) strategy = deps.registry.streamStrategy(strategy);

  const ctx: StrategyContext = {
    // An own property only, as src/plugin/options.ts checks: a strategy named `constructor` gets its options, not Object's.
    options: Object.hasOwn(config.routing.strategies, strategy.name) ? config.routing.strategies[strategy.name]! : emptyOptionsOf(strategy),
    catalog: deps.catalog,
    isAvailable: (m) => isAvailable(deps, m, input) && speaksFormat(deps, input, m),
    health: deps.health,
    estimateTokens: neutralEstimate,
  };
  const planned = strategy.plan({ request: input.request, requestedModel: name, clientFormat: input.clientFormat, headers: input.headers }, ctx);
  const chosen = strategy;
  return planned instanceof Promise ? planned.then((plan) => routingOf(deps, input, chosen, plan)) : routingOf(deps, input, chosen, planned);
}

/**
 * A plugin's plan is checked before any vendor call: its tier and reasons become routing facts
 * (headers, the run log), and a plan of the wrong shape would otherwise fail only once paid for.
 */
function planProblem(plan: RoutePlan): string | undefined {
  if (!plan || typeof plan !== "object") return "the plan is not an object";
  if (!Array.isArray(plan.candidates) || !plan.candidates.every((c) => typeof c === "string")) return "candidates must be an array of model names";
  if (plan.mode !== "fallback" && plan.mode !== "cascade") return 'mode must be "fallback" or "cascade"';
  if (plan.tier !== undefined && typeof plan.tier !== "string") return "tier must be a string";
  if (!Array.isArray(plan.reasons) || !plan.reasons.every((r) => typeof r === "string")) return "reasons must be an array of strings";
  if (plan.maxEscalations !== undefined && !(typeof plan.maxEscalations === "number" && plan.maxEscalations >= 0)) return "maxEscalations must be a number of at least 0";
  return undefined;
}

/** The plan's candidates resolved in the catalog: unknown names dropped (and logged), duplicates once. */
function routingOf(deps: RouterDeps, input: PlanInput, strategy: StrategyPlugin, plan: RoutePlan): Routing {
  const problem = planProblem(plan);
  if (problem) throw new CoreError(500, "strategy_error", `Routing strategy "${strategy.name}" returned an invalid plan: ${problem}`);
  const name = input.requestedModel;
  const candidates: ModelInfo[] = [];
  for (const c of plan.candidates) {
    const m = deps.catalog.resolve(c);
    if (!m) {
      deps.log.warn("strategy proposed an unknown model", { strategy: strategy.name, model: c });
      continue;
    }
    if (!speaksFormat(deps, input, m) || holds(candidates, m)) continue;
    candidates.push(m);
  }
  if (candidates.length === 0) {
    if (input.nativeOnly !== undefined && plan.candidates.length) throw notNative(input);
    throw new CoreError(503, "no_candidate", `No model available for ${name}: ${plan.reasons.join("; ") || "the strategy proposed none"}`);
  }
  return { strategy: strategy.name, plan, candidates, judge: plan.mode === "cascade" ? strategy.judge : undefined };
}
