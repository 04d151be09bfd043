// Public data on `relay cloud` (spec §2.9, §4.3): GET /models.json, GET /providers.json and
// GET /api/v1/catalog, with no key: reference data anyone may read (src/core/catalog/public-view.ts).
// They are not behind the hosted guard, so no team's rate limit counts them, and no per-client limit
// either: the listener does not see the peer's address (and behind a load balancer it would be the
// balancer's). Their protection is their cost: the two documents are built and hashed once per
// catalog (it changes on a config or plugin reload, not per request), a client holding the current
// ETag gets a bodiless 304, `Cache-Control: public` lets browsers and CDNs keep them, and a catalog
// query filters a few hundred objects in memory.
import { Elysia } from "elysia";
import { CAPABILITIES, type Capability, type CatalogFilter, type PublicModel, VIRTUAL_PROVIDER, publicModels, publicProviders, queryCatalog } from "../../core/catalog/public-view.ts";
import { invalid } from "../../core/registry/fields.ts";
import type { ModelInfo } from "../../plugin/api.ts";
import type { Registry } from "../../plugin/registry.ts";
import type { Relay } from "../../relay.ts";
import * as docs from "../openapi/cloud-public.ts";
import { etagOf, withEtag } from "../respond.ts";
import { integerParam } from "./paging.ts";

/** Five minutes fresh, then revalidated by ETag: a reload's new prices reach a client within that. */
export const PUBLIC_CACHE_CONTROL = "public, max-age=300";
export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 200;

interface Document {
  text: string;
  etag: string;
}

interface PublicData {
  models: PublicModel[];
  /** Provider names a catalog query may filter by. */
  providerNames: Set<string>;
  modelsDoc: Document;
  providersDoc: Document;
}

export const doc = (value: unknown): Document => {
  const text = JSON.stringify(value);
  return { text, etag: etagOf(text) };
};

function build(relay: Relay): PublicData {
  const models = publicModels(relay.catalog.list(), relay.registry.virtualModelNames());
  const providers = publicProviders(relay.registry.providers.values(), models);
  return {
    models,
    providerNames: new Set([...providers.map((p) => p.id), ...models.map((m) => m.provider), VIRTUAL_PROVIDER]),
    modelsDoc: doc({ object: "list", data: models }),
    providersDoc: doc({ object: "list", data: providers }),
  };
}

/** The public data of the catalog and plugins in force, rebuilt when either is replaced. */
function publicDataOf(relay: Relay): () => PublicData {
  let built: { catalog: readonly ModelInfo[]; registry: Registry; data: PublicData } | undefined;
  return () => {
    // A new routable list marks every catalog change (catalog.ts), a new registry a plugin reload.
    const catalog = relay.catalog.routableModels();
    if (built?.catalog !== catalog || built.registry !== relay.registry) built = { catalog, registry: relay.registry, data: build(relay) };
    return built.data;
  };
}

export function answer(request: Request, { text, etag }: Document): Response {
  const res = withEtag(request, text, "application/json", etag);
  res.headers.set("cache-control", PUBLIC_CACHE_CONTROL);
  return res;
}

export function publicDataRoutes(relay: Relay) {
  const data = publicDataOf(relay);
  return new Elysia({ name: "cloud-public-data" })
    .get("/models.json", ({ request }) => answer(request, data().modelsDoc), { detail: docs.models })
    .get("/providers.json", ({ request }) => answer(request, data().providersDoc), { detail: docs.providers })
    .get("/api/v1/catalog", ({ request }) => {
      const current = data();
      const filter = catalogFilter(new URL(request.url).searchParams, current.providerNames);
      return answer(request, doc({ object: "list", ...queryCatalog(current.models, filter) }));
    }, { detail: docs.catalog });
}

/** The parameters given at most once, by their type's name. */
const SCALARS: Record<string, string> = { min_price: "number", max_price: "number", price_field: "string", min_context: "integer", limit: "integer", starting_after: "string" };
const LISTS = ["provider", "capability"];
const PARAMETERS = [...LISTS, ...Object.keys(SCALARS)];
const DECIMAL = /^\d+(\.\d+)?$/;

/** GET /api/v1/catalog's query as a filter; each bad parameter is a 400 naming it. */
export function catalogFilter(query: URLSearchParams, providerNames: ReadonlySet<string>): CatalogFilter {
  for (const name of new Set(query.keys())) {
    if (!PARAMETERS.includes(name)) throw invalid(name, query.get(name), "none", `is not a parameter of this route; it takes ${PARAMETERS.join(", ")}`);
    const type = SCALARS[name];
    if (type !== undefined && query.getAll(name).length > 1) throw invalid(name, query.getAll(name), type, "must be given once");
  }
  const limit = integerParam(query, "limit", DEFAULT_LIMIT, 1);
  if (limit > MAX_LIMIT) throw invalid("limit", String(limit), "integer", `must be at most ${MAX_LIMIT}`);
  const filter: CatalogFilter = { limit };
  const providers = listParam(query, "provider", (p) => providerNames.has(p), `must name providers of the catalog: ${[...providerNames].sort().join(", ")}`);
  if (providers.length) filter.providers = providers;
  const capabilities = listParam(query, "capability", (c) => (CAPABILITIES as readonly string[]).includes(c), `must name capabilities among ${CAPABILITIES.join(", ")}`);
  if (capabilities.length) filter.capabilities = capabilities as Capability[];
  const price = priceBounds(query);
  if (price) filter.price = price;
  if (query.has("min_context")) filter.minContext = integerParam(query, "min_context", 0, 1);
  const after = query.get("starting_after");
  if (after !== null) {
    if (after === "" || after.length > 256) throw invalid("starting_after", after, "string", "must be the id of the last model of the previous page");
    filter.startingAfter = after;
  }
  return filter;
}

/** A repeatable, comma-separated parameter's values (empty ones ignored), each passing `known`. */
function listParam(query: URLSearchParams, name: string, known: (value: string) => boolean, message: string): string[] {
  const values = query.getAll(name).flatMap((v) => v.split(",")).map((v) => v.trim()).filter((v) => v !== "");
  const unknown = values.find((v) => !known(v));
  if (unknown !== undefined) throw invalid(name, unknown, "string", message);
  return [...new Set(values)];
}

function priceBounds(query: URLSearchParams): CatalogFilter["price"] {
  const field = query.get("price_field") ?? "input";
  if (field !== "input" && field !== "output") throw invalid("price_field", field, "string", "must be input or output");
  const min = decimalParam(query, "min_price");
  const max = decimalParam(query, "max_price");
  if (min !== undefined && max !== undefined && max < min) throw invalid("max_price", query.get("max_price"), "number", "must not be below min_price");
  return min === undefined && max === undefined ? undefined : { field, min, max };
}

function decimalParam(query: URLSearchParams, name: string): number | undefined {
  const raw = query.get(name);
  if (raw === null) return undefined;
  if (!DECIMAL.test(raw)) throw invalid(name, raw, "number", "must be a non-negative decimal number (USD per million tokens)");
  return Number(raw);
}
