// The public plugin API. User plugins import it as `relay/plugin`; the host
// registers that module at runtime, so a plugin file needs no node_modules.
// Built-in providers and strategies are written against exactly this API.

import type { TSchema } from "@sinclair/typebox";
import type {
  ChatRequest,
  ChatResponse,
  WireFormat,
} from "../core/ir.ts";
import { compileModelPatterns } from "../core/catalog/patterns.ts";
import { optionsValidator } from "./options.ts";

export type { ChatRequest, ChatResponse, WireFormat } from "../core/ir.ts";
export type * from "../core/ir.ts";
/** TypeBox, for options schemas: a plugin file gets it from `relay/plugin` and needs no `node_modules`. */
export { Type } from "@sinclair/typebox";
/** The coarse feature bucket the mesh keys success rates by (`complex.m`): a request's tier and input-size band. */
export { requestBucket } from "../core/mesh/bucket.ts";
export type { Static, TSchema } from "@sinclair/typebox";

export type Tier = "simple" | "moderate" | "complex";

export interface ModelPrice {
  /** USD per million tokens. */
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
}

export interface ModelCapabilities {
  tools: boolean;
  vision: boolean;
  json: boolean;
  reasoning: boolean;
  streaming: boolean;
}

export interface ModelInfo {
  /** The vendor's own model id, e.g. `claude-sonnet-4-5`. */
  id: string;
  /** Name of the provider plugin that serves it. */
  provider: string;
  aliases: string[];
  contextWindow?: number;
  maxOutput?: number;
  price?: ModelPrice;
  capabilities: ModelCapabilities;
  /** Strategies may use this hint when a tier has no configured model. */
  tier?: Tier;
  /** Only routable models are offered by `/v1/models` and chosen by strategies. */
  routable: boolean;
}

export interface ProviderRequestContext {
  /** Vendor model id. */
  model: string;
  stream: boolean;
  /** Effective base URL (config/env override or the plugin default), no trailing slash. */
  baseUrl: string;
  /** The credential to use; undefined when the provider needs none. */
  apiKey?: string;
  /** Headers the client sent, for vendor headers that must be forwarded (e.g. `anthropic-beta`). */
  clientHeaders: Headers;
  /** Wire format of this call's body: the provider's `format` or one of its `alsoSpeaks` (absent means `format`). */
  format?: WireFormat;
}

/**
 * The credential a client brings for this vendor (Claude Code sends its Anthropic key or subscription
 * token on `/v1/messages`). Relay reads it from requests in `format`, uses it for this provider's
 * calls, and refuses such a request (401) when neither the client nor Relay has a credential.
 */
export interface ClientCredentialStyle {
  /** Client wire format whose requests carry it. One loaded provider per format may declare it (the last loaded wins). */
  format: WireFormat;
  /** Headers to read, first present wins; `authorization` is read as `Bearer <credential>`. */
  headers: string[];
  /**
   * Credentials with this prefix are tied to the client's own plan (OAuth tokens): used only for the
   * model the client asked for, and replaced by Relay's key when the router chose another one.
   */
  oauthPrefix?: string;
  /**
   * Requests in `format` without it are served all the same (by other vendors, translated), not
   * refused when Relay has no key for this provider either: Gemini's key belongs to Google alone.
   */
  optional?: boolean;
}

export interface ProviderPlugin {
  kind: "provider";
  name: string;
  displayName?: string;
  /** Wire format the vendor speaks; selects the codec. */
  format: WireFormat;
  /**
   * Further wire formats the vendor accepts (OpenAI: `responses`). A call that arrives in one of them
   * is sent in it (the client's bytes as they are, when nothing must change); `request()` then gets
   * it as `ctx.format` and chooses the URL. Calls in any other format are translated to `format`.
   */
  alsoSpeaks?: readonly WireFormat[];
  /** Default base URL, no trailing slash. */
  baseUrl: string;
  /** Env variables holding the key (`<PROVIDER>_API_KEY` first), first set wins; empty when no key is needed. */
  apiKeyEnv?: string[];
  /** Env variables that override the base URL, first set wins. */
  baseUrlEnv?: string[];
  /**
   * The vendor's API version segment (`/v1`, `/v1beta`, `/api`), which vendors' docs put in the base
   * URL or in the request paths. With it, a configured base URL works with or without the segment:
   * Relay brings it to the form `baseUrl` has before `request()` sees it — adding the segment when
   * `baseUrl` ends with it (to a bare host, or to `baseUrl`'s own path without it; any other path is
   * kept as given), and removing a trailing one otherwise.
   */
  versionPath?: string;
  /** URL and headers of a chat call. The body is the codec's output. */
  request(ctx: ProviderRequestContext): { url: string; headers: Record<string, string> };
  /** Vendor quirks applied to the encoded request body. */
  adaptBody?(body: Record<string, unknown>, ctx: ProviderRequestContext): Record<string, unknown>;
  /** URL and headers of the vendor's token-counting endpoint, if it has one. */
  countTokens?(ctx: ProviderRequestContext): { url: string; headers: Record<string, string> };
  /** Models this provider serves, merged into the catalog. */
  models?: ModelInfo[];
  /**
   * Bare model names this provider serves beyond `models`: regular expressions or globs (`qwen*`),
   * case-insensitive, tried after the catalog's own names (`<provider>:<model>` always reaches it).
   */
  modelPatterns?: Array<RegExp | string>;
  clientCredential?: ClientCredentialStyle;
}

export interface CatalogView {
  /** Resolve `<vendor>:<model>`, `<vendor>/<model>`, bare ids and aliases. */
  resolve(name: string): ModelInfo | undefined;
  list(): ModelInfo[];
  /** Routable models in catalog order: one frozen array until the catalog changes, so derived data can be cached by its identity. */
  routableModels(): readonly ModelInfo[];
}

export interface RouteInput {
  request: ChatRequest;
  /** Model name exactly as the client sent it. */
  requestedModel: string;
  clientFormat: WireFormat;
  headers: Headers;
}

/** What is known about a provider's or a model's health; every source (local cooldown and failures, and the mesh's reports through `shared`) feeds it. */
export interface HealthFacts {
  /** True while some source has it cooled down. */
  coolingDown: boolean;
  /** When the last active cooldown ends, ms since the epoch. */
  cooldownEndsAt?: number;
  /** Failures counted towards a cooldown and not yet cleared by a success. */
  recentFailures: number;
  lastError?: string;
  lastFailureAt?: number;
}

/** What other proxies reported of a model through the mesh (mesh.enabled), over the cloud's last 24 hours. */
export interface SharedFacts {
  requests: number;
  /** Outcomes that count against the model: rate limits, server errors, timeouts. */
  errors: number;
  successRate: number;
  /** The success rate meets the configured bar (mesh.successBar). */
  meetsBar: boolean;
}

export interface HealthView {
  provider(name: string): HealthFacts;
  /** The model's own facts merged with its provider's. */
  model(model: ModelInfo): HealthFacts;
  /**
   * What the mesh reported of the model: over every bucket, or for requests of `bucket` (requestBucket());
   * undefined without the mesh or with too few reports (fewer than 5) to judge by.
   */
  shared?(model: ModelInfo, bucket?: string): SharedFacts | undefined;
}

export interface StrategyContext<O = Record<string, unknown>> {
  /**
   * This strategy's options from config (`routing.strategies.<name>`; `{}` when none are set), which
   * passed the plugin's `options` schema and `checkOptions`. Relay fills in no defaults.
   */
  options: O;
  catalog: CatalogView;
  /** False while the model or its provider is cooling down (see `health`), or the provider has no credentials. */
  isAvailable(model: ModelInfo): boolean;
  health: HealthView;
  /** Local estimate of the request's input tokens. */
  estimateTokens(req: ChatRequest): number;
}

export interface RoutePlan {
  /** Model names to try, in order (resolved by the router through the catalog). */
  candidates: string[];
  /** `fallback`: move on after retryable failures; `cascade`: also after an answer `judge` rejects. */
  mode: "fallback" | "cascade";
  tier?: Tier;
  /** Human-readable reasons for the decision; surfaced in headers and the run log. */
  reasons: string[];
  /** Cascade only: how many times the router may move up the chain. */
  maxEscalations?: number;
}

export interface Verdict {
  accept: boolean;
  reason?: string;
}

/**
 * `O` is the options' type, e.g. `Static<typeof MyOptions>`: declare `plan(input, ctx: StrategyContext<O>)`
 * and `ctx.options` is typed.
 */
export interface StrategyPlugin<O = Record<string, unknown>> {
  kind: "strategy";
  name: string;
  description?: string;
  /** Virtual model names this strategy answers to, e.g. `svc:auto`. */
  models?: string[];
  /** What each of `models` does, for `GET /v1/models` and `relay models`; a model without one shows `description`. */
  modelDescriptions?: Record<string, string>;
  /**
   * This strategy plans requests for concrete model names (`claude-sonnet-4-5`, `groq:llama-3.3`)
   * unless `routing.override` names another. The built-in `fallback` declares it; a strategy replacing
   * it declares it too (nothing is inherited by name). A user plugin's claim takes it from a built-in;
   * a second user plugin claiming it fails to load; with no claimant such requests get 500 `strategy_missing`.
   */
  servesConcreteModels?: boolean;
  /**
   * This strategy needs whole answers (e.g. to `judge` them), so streamed requests are planned by the
   * strategy named here instead (the built-in `cascade` names `complexity`). Checked at load.
   */
  streamStandIn?: string;
  /**
   * Schema of this strategy's options: a TypeBox schema (`Type` from `relay/plugin`) or plain JSON
   * Schema, draft 2020-12 (or the 2019-09, 07 or 04 its `$schema` names), every keyword enforced but
   * `$dynamicRef`; a `$ref` outside the schema, an unknown `format` or a bad `pattern` fails the load
   * (checked with @cfworker/json-schema, no code generation). Relay checks the configured options
   * at start (a failure stops the start, naming the path), on config reload (the running config is
   * kept), on `POST /control/config` (400 `invalid_config` naming the path) and on plugin reload (the
   * plugin is reported failed), so `plan` only sees options that passed. Without a schema, options are
   * handed over unchecked. A plugin replacing a built-in also receives the built-in's default options.
   */
  options?: TSchema | Record<string, unknown> | boolean;
  /** What the schema cannot express (e.g. one option below another): the problem, or undefined. Runs after the schema passes. */
  checkOptions?(options: O): string | undefined;
  plan(input: RouteInput, ctx: StrategyContext<O>): RoutePlan | Promise<RoutePlan>;
  /** Cascade: judge a complete answer; `accept: false` escalates to the next candidate. */
  judge?(res: ChatResponse, req: ChatRequest): Verdict;
}

export type RelayPlugin = ProviderPlugin | StrategyPlugin;

const KINDS = new Set(["provider", "strategy"]);
const VERSION_PATH = /^(\/[\w.~-]+)+$/;
const FORMATS: readonly string[] = ["openai", "anthropic", "gemini", "ollama", "responses"] satisfies WireFormat[];

/** Declare a plugin. Validates the shape so a broken plugin fails at load, naming what is wrong. */
export function definePlugin<P extends RelayPlugin>(plugin: P): P {
  if (!plugin || typeof plugin !== "object") throw new TypeError("definePlugin expects an object");
  if (!KINDS.has(plugin.kind)) throw new TypeError(`plugin kind must be "provider" or "strategy", got ${JSON.stringify(plugin.kind)}`);
  if (typeof plugin.name !== "string" || !/^[a-z0-9][a-z0-9_-]*$/i.test(plugin.name))
    throw new TypeError(`plugin name must be a non-empty identifier, got ${JSON.stringify(plugin.name)}`);
  if (plugin.kind === "strategy") {
    if (typeof plugin.plan !== "function") throw new TypeError(`strategy "${plugin.name}" must have a plan() function`);
    if (plugin.checkOptions !== undefined && typeof plugin.checkOptions !== "function")
      throw new TypeError(`strategy "${plugin.name}": checkOptions must be a function`);
    optionsValidator(plugin); // a schema Relay cannot check fails the load, not the first check
    if (plugin.servesConcreteModels !== undefined && typeof plugin.servesConcreteModels !== "boolean")
      throw new TypeError(`strategy "${plugin.name}": servesConcreteModels must be a boolean`);
    if (plugin.streamStandIn !== undefined && (typeof plugin.streamStandIn !== "string" || plugin.streamStandIn === plugin.name))
      throw new TypeError(`strategy "${plugin.name}": streamStandIn must name another strategy`);
    const described = plugin.modelDescriptions;
    if (described !== undefined && (!described || typeof described !== "object" || !Object.entries(described).every(([m, d]) => plugin.models?.includes(m) && typeof d === "string")))
      throw new TypeError(`strategy "${plugin.name}": modelDescriptions must map names in models to strings`);
  }
  if (plugin.kind === "provider") {
    if (typeof plugin.request !== "function") throw new TypeError(`provider "${plugin.name}" must have a request() function`);
    if (!FORMATS.includes(plugin.format))
      throw new TypeError(`provider "${plugin.name}" has unknown format ${JSON.stringify(plugin.format)}`);
    compileModelPatterns(plugin); // a bad pattern fails the load
    if (plugin.alsoSpeaks !== undefined && (!Array.isArray(plugin.alsoSpeaks) || !plugin.alsoSpeaks.every((f) => FORMATS.includes(f))))
      throw new TypeError(`provider "${plugin.name}": alsoSpeaks must list known formats, got ${JSON.stringify(plugin.alsoSpeaks)}`);
    if (plugin.versionPath !== undefined && (typeof plugin.versionPath !== "string" || !VERSION_PATH.test(plugin.versionPath)))
      throw new TypeError(`provider "${plugin.name}": versionPath must be a path segment such as "/v1", got ${JSON.stringify(plugin.versionPath)}`);
    checkClientCredential(plugin);
  }
  return Object.freeze(plugin);
}

function checkClientCredential(p: ProviderPlugin): void {
  const c = p.clientCredential;
  if (c === undefined) return;
  const fail = (what: string) => new TypeError(`provider "${p.name}": clientCredential.${what}`);
  if (!c || typeof c !== "object") throw fail("must be an object");
  if (!FORMATS.includes(c.format)) throw fail(`format is unknown: ${JSON.stringify(c.format)}`);
  if (!Array.isArray(c.headers) || c.headers.length === 0 || !c.headers.every((h) => typeof h === "string" && h.length > 0))
    throw fail("headers must be a non-empty list of header names");
  if (c.oauthPrefix !== undefined && (typeof c.oauthPrefix !== "string" || c.oauthPrefix === "")) throw fail("oauthPrefix must be a non-empty string");
  if (c.optional !== undefined && typeof c.optional !== "boolean") throw fail("optional must be a boolean");
}
