// /openapi.json against the running app: a well-formed OpenAPI 3.1 document
// listing exactly the routes Elysia registered; its query bounds, admin guard
// and x-svc-* headers are the ones the routes really apply; and real answers
// (success and error) match the schemas it documents.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { FormatRegistry, type TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { Elysia } from "elysia";
import { cloudSurface } from "../../src/surfaces/cloud/index.ts";
import { openApiDocument, openApiPath, type OpenApiDocument } from "../../src/surfaces/docs/openapi.ts";
import { VERSION } from "../../src/version.ts";
import { sendTraffic } from "../dashboard/world.ts";
import { startDocsWorld, type DocsWorld } from "./world.ts";

// Answers carry ISO timestamps; TypeBox checks a format only once it is registered.
if (!FormatRegistry.Has("date-time")) FormatRegistry.Set("date-time", (v) => !Number.isNaN(Date.parse(v)));

type Json = Record<string, any>;

const PROXY_ROUTES = [
  "POST /v1/messages",
  "POST /v1/messages/count_tokens",
  "POST /v1/chat/completions",
  "GET /v1/models",
  "GET /health",
  "GET /healthz",
  "GET /status",
];

/** Issue 7's list of what the document must cover. */
const REQUIRED = [
  ...PROXY_ROUTES,
  ...["enable", "disable", "config", "kill"].map((r) => `POST /control/${r}`),
  "GET /control/status",
  "GET /control/stats",
  ...["stats", "runs", "savings", "health"].map((r) => `GET /v1/telemetry/${r}`),
  "GET /v1/config",
  "GET /dashboard/config",
  "GET /",
  "GET /dashboard",
  "GET /dashboard/settings",
  ...["summary", "series", "runs", "runs/{id}", "live"].map((r) => `GET /dashboard/api/${r}`),
  "GET /openapi.json",
  "GET /docs",
];

const ALWAYS_SET_ROUTING_HEADERS = [
  "x-svc-requested-model",
  "x-svc-routed-model",
  "x-svc-provider",
  "x-svc-strategy",
  "x-svc-fallback-used",
  "x-svc-attempts",
  "x-svc-estimated-cost",
  "x-svc-overhead-ms",
];

let w: DocsWorld;
let doc: OpenApiDocument;

beforeAll(async () => {
  w = await startDocsWorld();
  expect(await sendTraffic(w.dashboard)).toEqual([200, 200, 200, 400, 200]);
  const res = await fetch(`${w.url}/openapi.json`);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("application/json");
  doc = (await res.json()) as OpenApiDocument;
}, 30_000);

afterAll(() => w?.stop());

const operations = () =>
  Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ path, method, op: op as Json, key: `${method.toUpperCase()} ${path}` })));

const registeredRoutes = () => w.surfaces.flatMap((s) => s.routes);

/** The JSON pointer `#/a/b` inside the document. */
const resolve = (ref: string): unknown => ref.slice(2).split("/").reduce<any>((node, key) => node?.[key], doc);

const refsIn = (value: unknown): string[] =>
  Array.isArray(value)
    ? value.flatMap(refsIn)
    : value && typeof value === "object"
      ? Object.entries(value).flatMap(([k, v]) => (k === "$ref" && typeof v === "string" ? [v] : refsIn(v)))
      : [];

/** The documented parameter `name` of the operation `key`, its $refs resolved one level. */
function parameter(key: string, name: string): Json {
  const op = operations().find((o) => o.key === key)!.op;
  return (op.parameters as Json[]).find((p) => p.name === name)!;
}

describe("the OpenAPI document", () => {
  test("is OpenAPI 3.1 and every path has operations with summaries, tags and described responses", () => {
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info).toMatchObject({ title: "Relay", version: VERSION });
    const tags = new Set(doc.tags.map((t) => t.name));
    for (const [path, ops] of Object.entries(doc.paths)) {
      expect(path.startsWith("/")).toBe(true);
      expect(Object.keys(ops).length).toBeGreaterThan(0);
    }
    const ops = operations();
    expect(ops.length).toBeGreaterThanOrEqual(REQUIRED.length);
    for (const { key, method, path, op } of ops) {
      expect(["get", "post", "put", "patch", "delete"], key).toContain(method);
      expect(op.summary, key).toBeString();
      expect(op.tags.length, key).toBeGreaterThan(0);
      for (const t of op.tags) expect(tags.has(t), `${key} tag ${t}`).toBe(true);
      const responses = Object.entries(op.responses as Json);
      expect(responses.some(([status]) => status.startsWith("2")), key).toBe(true);
      for (const [status, res] of responses) {
        expect(status, key).toMatch(/^[1-5]\d\d$/);
        expect((res as Json).description, `${key} ${status}`).toBeString();
        expect((res as Json).headers["x-svc-request-id"], `${key} ${status}`).toEqual({ $ref: "#/components/headers/x-svc-request-id" });
      }
      // Path templates and path parameters match one to one.
      const templated = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
      const declared = ((op.parameters ?? []) as Json[]).filter((p) => p.in === "path").map((p) => p.name).sort();
      expect(declared, key).toEqual(templated);
    }
  });

  test("every $ref resolves, and the named schemas carry no TypeBox internals", () => {
    const refs = refsIn(doc);
    expect(refs.length).toBeGreaterThan(50);
    for (const ref of new Set(refs)) expect(resolve(ref), ref).toBeDefined();
    const text = JSON.stringify(doc);
    expect(text).not.toContain('"$id"');
    expect(Object.keys(doc.components.schemas)).toEqual(expect.arrayContaining(["Error", "AnthropicError", "OpenAIError", "ChatCompletionRequest", "AnthropicMessagesRequest", "RunRecord"]));
  });

  test("documents exactly the routes the app registered, including every route issue 7 names", () => {
    const registered = registeredRoutes().map((r) => `${r.method} ${openApiPath(r.path)}`).sort();
    const documented = operations().map((o) => o.key).sort();
    expect(documented).toEqual(registered);
    expect(documented).toEqual(expect.arrayContaining(REQUIRED));
  });

  test("a route without documentation cannot be published", () => {
    const undocumented = new Elysia().get("/v1/new-thing", () => "x").post("/v1/other", () => "y", { detail: { summary: "no responses" } });
    expect(() => openApiDocument([undocumented], { title: "t", version: "0" })).toThrow("GET /v1/new-thing, POST /v1/other");
  });

  test("the `relay cloud` surface is documented too", () => {
    const cloud = openApiDocument([cloudSurface(w.dashboard.relay.relay)], { title: "Relay cloud", version: VERSION });
    // Every route it registers is documented (tests/cloud/openapi.test.ts holds the listener's routes to the document); here, the spec's four (§4.1) are among them.
    expect(Object.keys(cloud.paths)).toEqual(expect.arrayContaining(["/api/relay", "/api/discover", "/api/register", "/api/health", "/health"]));
    // Guarded routes document the key header, the guard's refusals and the rate-limit headers.
    const list = cloud.paths["/api/keys"]!.get! as any;
    // Not required: a user's access token (Authorization: Bearer) may stand in for the key.
    expect(list.parameters).toContainEqual(expect.objectContaining({ name: "x-api-key", in: "header", required: false }));
    expect(list.security).toEqual([{ apiKey: [] }, { accessToken: [] }]);
    expect(Object.keys(list.responses)).toEqual(expect.arrayContaining(["200", "401", "429"]));
    expect(list.responses[200].headers).toHaveProperty("x-ratelimit-remaining");
    expect(Object.keys((cloud.paths["/api/keys"]!.post! as any).responses)).toEqual(expect.arrayContaining(["201", "400", "401", "403", "413", "429"]));
    expect(cloud.paths["/health"]!.get!.responses).toMatchObject({ 200: { content: { "application/json": { schema: { $ref: "#/components/schemas/HostedHealth" } } } } });
  });

  test("documents the telemetry query bounds and defaults", () => {
    for (const key of ["GET /v1/telemetry/stats", "GET /v1/telemetry/savings"]) {
      expect(parameter(key, "days")).toMatchObject({ in: "query", schema: { type: "integer", minimum: 1, maximum: 365, default: 7 } });
    }
    expect(parameter("GET /v1/telemetry/runs", "limit")).toMatchObject({ in: "query", schema: { type: "integer", minimum: 1, maximum: 1000, default: 50 } });
    expect(parameter("GET /v1/telemetry/runs", "offset")).toMatchObject({ in: "query", schema: { type: "integer", minimum: 0, default: 0 } });
    expect(parameter("GET /v1/telemetry/runs", "offset").schema.maximum).toBeUndefined();
  });

  test("documented query bounds, defaults and enums are the ones the routes enforce", async () => {
    let probed = 0;
    for (const { key, path, op } of operations().filter((o) => o.method === "get" && !o.path.includes("{"))) {
      for (const p of ((op.parameters ?? []) as Json[]).filter((q) => q.in === "query")) {
        const s = p.schema as Json;
        const get = (value: string) => fetch(`${w.url}${path}?${p.name}=${value}`, { headers: w.dashboard.relay.admin });
        const refused = async (value: string) => {
          const res = await get(value);
          expect(res.status, `${key} ${p.name}=${value}`).toBe(400);
          expect(((await res.json()) as Json).error.details.parameter).toBe(p.name);
          probed++;
        };
        const accepted = async (value: string) => {
          const res = await get(value);
          expect(res.status, `${key} ${p.name}=${value}`).toBe(200);
          probed++;
          return (await res.json()) as Json;
        };
        if (s.type === "integer") {
          await refused(String(s.minimum - 1));
          await accepted(String(s.minimum));
          if (s.maximum !== undefined) {
            await refused(String(s.maximum + 1));
            await accepted(String(s.maximum));
          }
        }
        if (s.anyOf) {
          await refused("not-a-choice");
          for (const choice of s.anyOf as Json[]) await accepted(String(choice.const));
        }
        if (s.default !== undefined) {
          // Answers echo the effective value of their window and paging parameters.
          const res = await fetch(`${w.url}${path}`, { headers: w.dashboard.relay.admin });
          expect(res.status, key).toBe(200);
          expect(((await res.json()) as Json)[p.name], `${key} default ${p.name}`).toEqual(s.default);
        }
      }
    }
    expect(probed).toBeGreaterThan(20);
  });

  test("admin routes declare the bearer token or the session cookie, and exactly those refuse a request without either", async () => {
    expect(doc.components.securitySchemes.adminToken).toEqual(expect.objectContaining({ type: "http", scheme: "bearer" }));
    expect(doc.components.securitySchemes.dashboardSession).toEqual(expect.objectContaining({ type: "apiKey", in: "cookie" }));
    const guarded = operations().filter((o) => o.op.security);
    for (const o of guarded) {
      expect(o.op.security, o.key).toEqual([{ adminToken: [] }, { dashboardSession: [] }]);
      expect(o.op.responses["401"].content["application/json"].schema, o.key).toEqual({ $ref: "#/components/schemas/Error" });
    }
    expect(guarded.map((o) => o.key)).toEqual(expect.arrayContaining(REQUIRED.filter((k) => /\/(control|telemetry|dashboard\/api)\/|config$/.test(k))));
    // The admin token is required on loopback too (issue 34).
    for (const o of operations().filter((x) => x.method === "get" && !x.path.includes("{"))) {
      const res = await fetch(`${w.url}${o.path}`);
      await res.body?.cancel();
      expect(res.status === 401, `${o.key} answered ${res.status}`).toBe(o.op.security !== undefined);
    }
  });

  test("every route documents the browser guard's refusals, which every route really answers", async () => {
    for (const o of operations()) {
      const statuses = ["403", "421", ...(o.method === "post" ? ["415"] : [])];
      for (const status of statuses) expect(o.op.responses[status]?.content?.["application/json"], `${o.key} documents ${status}`).toBeDefined();
      if (o.method === "post") expect(o.op.responses["415"]).toBeDefined();
      else expect(o.op.responses["415"], o.key).toBeUndefined();
    }
    const port = new URL(w.url).port;
    for (const o of operations().filter((x) => !x.path.includes("{"))) {
      const method = o.method.toUpperCase();
      const origin = await fetch(`${w.url}${o.path}`, { method, headers: { ...w.dashboard.relay.admin, origin: "https://elsewhere.example", "content-type": "application/json" } });
      await origin.body?.cancel();
      expect(origin.status, `${o.key} from a foreign origin`).toBe(403);
      const rebound = await fetch(`${w.url}${o.path}`, { method, headers: { ...w.dashboard.relay.admin, host: `rebound.example:${port}`, "content-type": "application/json" } });
      await rebound.body?.cancel();
      expect(rebound.status, `${o.key} under another Host`).toBe(421);
      if (o.method !== "post") continue;
      const plain = await fetch(`${w.url}${o.path}`, { method, headers: { ...w.dashboard.relay.admin, "content-type": "text/plain" }, body: "{}" });
      await plain.body?.cancel();
      expect(plain.status, `${o.key} with text/plain`).toBe(415);
    }
  });

  test("model routes document their vendor's error shape, other routes the spec's", () => {
    const errorSchemaOf = (key: string) => {
      const op = operations().find((o) => o.key === key)!.op;
      return new Set(
        Object.entries(op.responses as Json)
          .filter(([status]) => Number(status) >= 400)
          .map(([, r]) => (r as Json).content["application/json"].schema.$ref),
      );
    };
    expect(errorSchemaOf("POST /v1/messages")).toEqual(new Set(["#/components/schemas/AnthropicError"]));
    expect(errorSchemaOf("POST /v1/messages/count_tokens")).toEqual(new Set(["#/components/schemas/AnthropicError"]));
    expect(errorSchemaOf("POST /v1/chat/completions")).toEqual(new Set(["#/components/schemas/OpenAIError"]));
    for (const key of ["GET /v1/telemetry/runs", "POST /control/kill", "GET /dashboard/api/runs/{id}"]) {
      expect(errorSchemaOf(key)).toEqual(new Set(["#/components/schemas/Error"]));
    }
    const specError = doc.components.schemas.Error as Json;
    expect(specError.required).toEqual(["error", "request_id"]);
    expect(specError.properties.error.required).toEqual(["code", "message"]);
    expect(specError.properties.error.properties.details).toEqual({ $ref: "#/components/schemas/ErrorDetails" });
  });
});

/** The TypeBox schema a route documents for a status and content type (taken from its `detail`, before hoisting). */
function documentedSchema(method: string, template: string, status: number, contentType: string): TSchema {
  const route = registeredRoutes().find((r) => r.method === method && openApiPath(r.path) === template);
  expect(route, `${method} ${template} is registered`).toBeDefined();
  const response = route!.hooks.detail.responses[status];
  expect(response, `${method} ${template} documents ${status}`).toBeDefined();
  const schema = response.content?.[contentType]?.schema;
  expect(schema, `${method} ${template} ${status} documents ${contentType}`).toBeDefined();
  return schema;
}

/** The answer's status is documented for the route and its body matches the documented schema. */
async function expectConforms(res: Response, method: string, template: string): Promise<Json> {
  const contentType = (res.headers.get("content-type") ?? "").split(";")[0]!;
  const schema = documentedSchema(method, template, res.status, contentType);
  const body = (await res.json()) as Json;
  const alternatives: TSchema[] = (schema as Json).oneOf ?? [schema];
  const ok = alternatives.some((s) => Value.Check(s, body));
  if (!ok) console.error(`${method} ${template} ${res.status}`, [...Value.Errors(alternatives[0]!, body)].slice(0, 5), JSON.stringify(body).slice(0, 500));
  expect(ok, `${method} ${template} ${res.status} matches its documented schema`).toBe(true);
  return body;
}

// With the admin token, and every POST declared JSON (issue 34: the guard refuses other POSTs with 415).
const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  fetch(`${w.url}${path}`, {
    method,
    headers: { ...w.dashboard.relay.admin, ...(method === "POST" ? { "content-type": "application/json" } : {}), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

describe("real answers match the documented schemas", () => {
  test("the open and admin GET routes", async () => {
    const gets = operations().filter((o) => o.method === "get" && !o.path.includes("{") && o.op.responses["200"].content?.["application/json"]);
    expect(gets.length).toBeGreaterThan(15);
    for (const { path } of gets) await expectConforms(await call("GET", path), "GET", path);
    await expectConforms(await call("GET", "/v1/models", undefined, { "anthropic-version": "2023-06-01" }), "GET", "/v1/models");
    const { runs } = await expectConforms(await call("GET", "/dashboard/api/runs"), "GET", "/dashboard/api/runs");
    expect(runs.length).toBe(5);
    await expectConforms(await call("GET", `/dashboard/api/runs/${runs[0].id}`), "GET", "/dashboard/api/runs/{id}");
    await expectConforms(await call("GET", "/dashboard/api/runs/req_unknown"), "GET", "/dashboard/api/runs/{id}");
    await expectConforms(await call("GET", "/v1/telemetry/stats?days=0"), "GET", "/v1/telemetry/stats");
  });

  test("the control POST routes", async () => {
    await expectConforms(await call("POST", "/control/disable"), "POST", "/control/disable");
    await expectConforms(await call("POST", "/control/enable"), "POST", "/control/enable");
    expect(await expectConforms(await call("POST", "/control/kill", { sessionKey: "docs-test" }), "POST", "/control/kill")).toEqual({ killed: "docs-test", aborted: 0 });
    await expectConforms(await call("POST", "/control/kill", { nobody: true }), "POST", "/control/kill");
    await expectConforms(await call("POST", "/control/enable"), "POST", "/control/enable");
    const patched = await expectConforms(await call("POST", "/control/config", { limits: { rpm: { "gpt-4o-mini": 61 } } }), "POST", "/control/config");
    expect(patched.config.limits.rpm["gpt-4o-mini"]).toBe(61);
    await expectConforms(await call("POST", "/control/config", { limits: { rpm: { "gpt-4o-mini": "lots" } } }), "POST", "/control/config");
  });

  test("the model routes, their x-svc-* headers and their error shapes", async () => {
    w.dashboard.openai.enqueue({ text: "documented", usage: { input: 5, output: 2 } });
    const chat = await call("POST", "/v1/chat/completions", { model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] });
    await expectConforms(chat, "POST", "/v1/chat/completions");
    w.dashboard.anthropic.enqueue({ text: "documented", usage: { input: 5, output: 2 } });
    const messages = await call("POST", "/v1/messages", { model: "claude-haiku-4-5", max_tokens: 64, messages: [{ role: "user", content: "hi" }] });
    await expectConforms(messages, "POST", "/v1/messages");

    // Every x-svc-* header sent is documented, and the always-set ones are sent.
    for (const [res, key] of [[chat, "POST /v1/chat/completions"], [messages, "POST /v1/messages"]] as const) {
      const documented = Object.keys(operations().find((o) => o.key === key)!.op.responses["200"].headers);
      const sent = [...res.headers.keys()].filter((h) => h.startsWith("x-svc-"));
      expect(sent, key).toEqual(expect.arrayContaining(ALWAYS_SET_ROUTING_HEADERS));
      expect(documented, key).toEqual(expect.arrayContaining(sent));
    }

    const counted = await call("POST", "/v1/messages/count_tokens", { model: "claude-haiku-4-5", messages: [{ role: "user", content: "hi" }] });
    expect(counted.headers.get("x-svc-token-count")).toMatch(/^(vendor|estimate)$/);
    await expectConforms(counted, "POST", "/v1/messages/count_tokens");

    const noModel = { messages: [{ role: "user", content: "hi" }], max_tokens: 8 };
    const anthropicError = await expectConforms(await call("POST", "/v1/messages", noModel), "POST", "/v1/messages");
    expect(anthropicError.type).toBe("error");
    const openaiError = await expectConforms(await call("POST", "/v1/chat/completions", noModel), "POST", "/v1/chat/completions");
    expect(openaiError.error.param).toBe("model");
  });
});
