// OpenAPI operations of the public data routes (src/surfaces/cloud/public-data.ts): no key, ETags.
import { type TSchema, Type as T } from "@sinclair/typebox";
import { withHostedErrors } from "./cloud.ts";
import { type Operation, jsonResponse, queryParameter } from "./common.ts";

const Nullable = (s: TSchema) => T.Union([s, T.Null()]);
const Usd = (what: string) => T.Number({ minimum: 0, description: `${what}, USD per million tokens` });

const Pricing = T.Object(
  {
    input: Usd("input (prompt) tokens"),
    output: Usd("output tokens"),
    cache_read: Nullable(Usd("tokens read from the prompt cache")),
    cache_write: Nullable(Usd("tokens written to the prompt cache")),
  },
  { $id: "ModelPricing", description: "The base-tier list price, from the price data (@pydantic/genai-prices, else models.dev); a price above some prompt size is not shown." },
);

const Capability = T.Union([T.Literal("json"), T.Literal("reasoning"), T.Literal("streaming"), T.Literal("tools"), T.Literal("vision")], {
  description: "tools: tool (function) calls; vision: image input; json: JSON mode (models.dev has no flag of its own for it: tool support stands in); reasoning: a reasoning model; streaming: streamed answers",
});

const PublicModel = T.Object(
  {
    id: T.String({ description: "`<provider>:<model>` (the form a workflow step names a model in), or a virtual model's name such as `svc:auto`" }),
    object: T.Union([T.Literal("model"), T.Literal("virtual_model")], { description: "virtual_model: a routing strategy's name, which picks a model per request" }),
    provider: T.String({ description: "the provider plugin serving it; `relay` for virtual models" }),
    model: T.String({ description: "the vendor's own model id" }),
    aliases: T.Array(T.String(), { description: "other names Relay accepts for it" }),
    context_window: Nullable(T.Integer({ description: "tokens; null when unknown" })),
    max_output_tokens: Nullable(T.Integer({ description: "tokens; null when unknown" })),
    pricing: T.Union([Pricing, T.Null()], { description: "null when no price data lists the model (and for virtual models)" }),
    capabilities: T.Union([T.Array(Capability), T.Null()], {
      description: "what the model can do, sorted; null when the data says nothing (models only the price data lists, virtual models)",
    }),
    routable: T.Boolean({ description: "whether the routing strategies (svc:auto …) choose from it" }),
    tier: T.Union([T.Literal("simple"), T.Literal("moderate"), T.Literal("complex"), T.Null()], { description: "the routing tier of a routable model" }),
    strategy: T.Union([T.String(), T.Null()], { description: "a virtual model's strategy; null for the others" }),
    description: T.Union([T.String(), T.Null()], { description: "a virtual model's description; null for the others" }),
  },
  { $id: "PublicModel", description: "A model of the catalog. Every provider's models are listed, whether or not this server holds a key for it." },
);

const PublicProvider = T.Object(
  {
    id: T.String({ description: "the provider plugin's name, as in a model's provider" }),
    name: T.Union([T.String(), T.Null()], { description: "display name, when the plugin gives one" }),
    formats: T.Array(T.String(), { description: "wire formats it speaks: its own first" }),
    model_count: T.Integer({ description: "catalog models it serves (more are reached by `<provider>:<model>` passthrough)" }),
    routable_model_count: T.Integer(),
    priced_model_count: T.Integer(),
  },
  { $id: "PublicProvider", description: "A loaded provider plugin. Never its key, whether this server has one, or a configured base URL." },
);

const ModelList = T.Object({ object: T.Literal("list"), data: T.Array(PublicModel, { description: "sorted by id" }) }, { $id: "ModelList" });
const ProviderList = T.Object({ object: T.Literal("list"), data: T.Array(PublicProvider, { description: "sorted by id" }) }, { $id: "ProviderList" });
const CatalogPage = T.Object(
  {
    object: T.Literal("list"),
    data: T.Array(PublicModel, { description: "sorted by id" }),
    has_more: T.Boolean({ description: "whether a next page exists: ask again with starting_after set to the last id of this one" }),
    total: T.Integer({ description: "models matching the filters, on every page" }),
  },
  { $id: "CatalogPage" },
);

const CACHE_HEADERS = {
  etag: { description: "the body's hash; send it as If-None-Match to get a 304 while the catalog is unchanged", schema: { type: "string" } },
  "cache-control": { description: "public, max-age=300: caches may keep it five minutes, then revalidate", schema: { type: "string" } },
};

const NO_KEY = "No key needed: public reference data, the same for everyone. Not rate limited per client: it is built once per catalog (config or plugin reload) and cacheable (ETag, Cache-Control: public).";

function publicOperation(op: Operation & { responses: Record<string, object> }, refusals: Record<number, string> = {}): Operation {
  const responses = { ...op.responses, 304: { description: "Not modified: If-None-Match named the current ETag", headers: CACHE_HEADERS } };
  return { tags: ["public data"], ...op, description: `${op.description} ${NO_KEY}`, responses: withHostedErrors(responses, refusals) } as Operation;
}

export const models = publicOperation({
  summary: "Every model the catalog knows, with prices and capabilities",
  description: "The catalog's models of every provider plugin (spec §2.9) and the routing strategies' virtual models (`svc:auto` …), sorted by id.",
  responses: { 200: jsonResponse("The models", ModelList, CACHE_HEADERS) },
});

export const providers = publicOperation({
  summary: "The provider plugins loaded, with their model counts",
  description: "Each loaded provider plugin, sorted by id.",
  responses: { 200: jsonResponse("The providers", ProviderList, CACHE_HEADERS) },
});

const LIST_NOTE = "repeat the parameter or separate values with commas";

export const catalog = publicOperation(
  {
    summary: "Search the catalog",
    description:
      "The models of /models.json matching every filter given, sorted by id, a page at a time: follow `has_more` by sending the last id as `starting_after`. A filter on a value the data lacks (no price, no context window, unknown capabilities) leaves that model out. Any other parameter is refused, so a misspelt filter cannot silently match everything.",
    parameters: [
      queryParameter("provider", T.String(), `models of any of these providers (ids of /providers.json, or relay for the virtual models); ${LIST_NOTE}`),
      queryParameter("capability", T.String(), `models having every one of these capabilities (json, reasoning, streaming, tools, vision); ${LIST_NOTE}`),
      queryParameter("min_price", T.Number({ minimum: 0 }), "lowest price, inclusive, in USD per million tokens of price_field"),
      queryParameter("max_price", T.Number({ minimum: 0 }), "highest price, inclusive, in USD per million tokens of price_field"),
      queryParameter("price_field", T.Union([T.Literal("input"), T.Literal("output")], { default: "input" }), "the price min_price and max_price bound"),
      queryParameter("min_context", T.Integer({ minimum: 1 }), "smallest context window, in tokens"),
      queryParameter("limit", T.Integer({ minimum: 1, maximum: 200, default: 50 }), "page size"),
      queryParameter("starting_after", T.String(), "a model id: the page starts after it (the last id of the previous page)"),
    ],
    responses: { 200: jsonResponse("A page of models", CatalogPage, CACHE_HEADERS) },
  },
  {
    400: "a parameter is invalid, given twice (a scalar one), or unknown (invalid_request; details.parameter names it, details.expected its type: integer, number or string)",
  },
);
