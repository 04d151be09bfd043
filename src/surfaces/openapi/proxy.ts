// OpenAPI operations of the proxy surface (src/surfaces/proxy/index.ts).
import type { ErrorStyle } from "../http.ts";
import {
  AnthropicMessagesRequest,
  AnthropicMessagesResponse,
  AnthropicModelList,
  ChatCompletionRequest,
  ChatCompletionResponse,
  CountTokensRequest,
  CountTokensResponse,
  Health,
  ModelList,
} from "../schemas.ts";
import { ResponseDeleted, ResponseId, ResponseObject, ResponsesRequest } from "./responses-schemas.ts";
import { type Operation, asSchema, errorResponses, headerParameter, jsonContent, jsonRequestBody, jsonResponse, pathParameter, queryParameter } from "./common.ts";

const header = (description: string, example?: string) => ({ description, schema: asSchema({ type: "string", ...(example ? { examples: [example] } : {}) }) });

/** Headers reporting the routing decision (spec §4.2 rule 3), set on every routed answer. */
const ROUTING_HEADERS = {
  "x-svc-requested-model": header("the model the client asked for", "svc:auto"),
  "x-svc-routed-model": header("the model that answered", "claude-haiku-4-5"),
  "x-svc-provider": header("the provider that answered", "anthropic"),
  "x-svc-strategy": header("the routing strategy used", "cascade"),
  "x-svc-fallback-used": header("true when another model answered after a failure", "false"),
  "x-svc-attempts": header("upstream attempts made", "1"),
  "x-svc-estimated-cost": header("estimated cost in USD, 6 decimals", "0.000120"),
  "x-svc-overhead-ms": header("the gateway's own time in ms, excluding the vendor's", "0.85"),
  "x-svc-complexity-tier": header("the prompt's complexity tier, when the strategy classified it", "simple"),
  "x-svc-routing-reasons": header("why the strategy chose the model, `; `-separated"),
  "x-svc-dropped-params": header("request fields the routed provider could not honour, comma-separated", "logprobs"),
  "retry-after": header("seconds; forwarded from the vendor, or set on 429"),
};

const CLIENT_HEADERS = [
  headerParameter("x-svc-session", "groups requests into a session (logged; /control/kill ends it); x-claude-code-session-id is read too"),
  headerParameter("x-svc-metadata", "a JSON object logged with the request, e.g. {\"team\":\"search\"}"),
];

const MODEL_ROUTE_ERRORS: Record<number, string> = {
  400: "Invalid JSON, missing model or messages, model not found (with suggestions), routing disabled",
  401: "No credentials for the routed provider",
  403: "The request's session was killed",
  429: "rate_limit_exceeded (Retry-After set) or budget_exceeded",
  500: "Missing provider API key, all cascade models exhausted, request body too large",
  502: "Provider error",
  503: "Provider cooled down, or no candidate model available",
  508: "loop_detected: the request already passed through this Relay (its x-relay-via header carries this Relay's mark): a vendor base URL points back at Relay; the message names the setting to change",
};

const modelRouteErrors = (style: ErrorStyle) => errorResponses(style, MODEL_ROUTE_ERRORS);

const STREAM_NOTE = "With `stream: true` the answer is `text/event-stream` in the client's own format.";

export const messages: Operation = {
  tags: ["proxy"],
  summary: "Anthropic Messages API",
  description: `Anthropic models by name (use /v1/chat/completions for other vendors' names); virtual models such as svc:auto may route to any vendor, translated. Credentials: the client's x-api-key or Authorization bearer, else ANTHROPIC_API_KEY. ${STREAM_NOTE}`,
  parameters: CLIENT_HEADERS,
  requestBody: jsonRequestBody(AnthropicMessagesRequest),
  responses: {
    200: {
      description: "The model's answer",
      headers: ROUTING_HEADERS,
      content: { ...jsonContent(AnthropicMessagesResponse), "text/event-stream": { schema: { type: "string", description: "Anthropic message stream events" } } },
    },
    ...modelRouteErrors("anthropic"),
  },
};

export const countTokens: Operation = {
  tags: ["proxy"],
  summary: "Count a Messages request's input tokens",
  description: "Passed through to Anthropic when a credential is available (x-svc-token-count: vendor), otherwise estimated locally (x-svc-token-count: estimate).",
  requestBody: jsonRequestBody(CountTokensRequest),
  responses: {
    200: jsonResponse("The input token count", CountTokensResponse, {
      "x-svc-token-count": { description: "vendor or estimate", schema: { type: "string", enum: ["vendor", "estimate"] } },
    }),
    ...errorResponses("anthropic", { 400: "Invalid request or model not found", 500: "Request body too large", 502: "Provider error", 508: MODEL_ROUTE_ERRORS[508]! }),
  },
};

export const chatCompletions: Operation = {
  tags: ["proxy"],
  summary: "OpenAI Chat Completions, routed across every vendor",
  description: `Any model of any configured provider, an alias, or a virtual model. Also answered at any path containing /chat/completions (e.g. /openai/v1/chat/completions). ${STREAM_NOTE}`,
  parameters: CLIENT_HEADERS,
  requestBody: jsonRequestBody(ChatCompletionRequest),
  responses: {
    200: {
      description: "The model's answer",
      headers: ROUTING_HEADERS,
      content: { ...jsonContent(ChatCompletionResponse), "text/event-stream": { schema: { type: "string", description: "chat.completion.chunk events, then [DONE]" } } },
    },
    ...modelRouteErrors("openai"),
  },
};

const Open = { type: "object", additionalProperties: true };
const GeminiRequest = asSchema({
  type: "object",
  required: ["contents"],
  additionalProperties: true,
  properties: {
    contents: { type: "array", items: { type: "object", properties: { role: { enum: ["user", "model"] }, parts: { type: "array", items: Open } } } },
    systemInstruction: Open,
    generationConfig: Open,
    tools: { type: "array", items: Open },
    toolConfig: Open,
  },
  description: "A generateContent request; for countTokens, `{contents}` or `{generateContentRequest}`.",
});
const GeminiResponse = asSchema({
  type: "object",
  additionalProperties: true,
  properties: { candidates: { type: "array", items: Open }, usageMetadata: Open, modelVersion: { type: "string" }, totalTokens: { type: "integer", minimum: 0 } },
  description: "A GenerateContentResponse; countTokens answers `{totalTokens}`.",
});

export const gemini: Operation = {
  tags: ["proxy"],
  summary: "Google Gemini API: generateContent, streamGenerateContent, countTokens",
  description: [
    "The path's last segment is `{model}:generateContent`, `{model}:streamGenerateContent` or `{model}:countTokens` (also served under /v1/models/).",
    "Any model of any configured provider, an alias or a virtual model, translated to the vendor's format; Google's models pass through byte for byte.",
    "Streams are `text/event-stream` with `?alt=sse`, else Google's JSON array sent element by element.",
    "Credentials: the client's `x-goog-api-key` or `?key=` is used for Google only, else GEMINI_API_KEY; other vendors use Relay's keys.",
    "countTokens asks Google when Google serves the model and a key exists (x-svc-token-count: vendor), else estimates (x-svc-token-count: estimate).",
  ].join(" "),
  parameters: [
    pathParameter("modelMethod", asSchema({ type: "string", examples: ["gemini-2.5-flash:generateContent"] }), "`{model}:{method}`"),
    queryParameter("alt", asSchema({ enum: ["sse"] }), "`sse`: stream as server-sent events"),
    queryParameter("key", asSchema({ type: "string" }), "the client's Google API key (x-goog-api-key is preferred)"),
    headerParameter("x-goog-api-key", "the client's Google API key, used only for Google's models"),
    ...CLIENT_HEADERS,
  ],
  requestBody: { required: true, content: { "application/json": { schema: GeminiRequest } } },
  responses: {
    200: {
      description: "The model's answer, or the token count",
      headers: ROUTING_HEADERS,
      content: {
        "application/json": { schema: GeminiResponse },
        "text/event-stream": { schema: { type: "string", description: "GenerateContentResponse chunks as data: events" } },
      },
    },
    ...errorResponses("gemini", { ...MODEL_ROUTE_ERRORS, 404: "Not one of the methods Relay serves" }),
  },
};

export const createResponse: Operation = {
  tags: ["proxy"],
  summary: "OpenAI Responses API, routed across every vendor",
  description: `Routed like /v1/chat/completions (any model, alias or virtual model; the same guards and run log). Same-format calls to OpenAI pass byte for byte. Unless \`store: false\`, the response is kept with the run log's retention for GET /v1/responses/{id} and \`previous_response_id\`. ${STREAM_NOTE} (response.created … response.completed)`,
  parameters: CLIENT_HEADERS,
  requestBody: jsonRequestBody(ResponsesRequest),
  responses: {
    200: {
      description: "The response",
      headers: ROUTING_HEADERS,
      content: { ...jsonContent(ResponseObject), "text/event-stream": { schema: { type: "string", description: "Responses API events, response.created to response.completed" } } },
    },
    ...modelRouteErrors("openai"),
  },
};

const responseId = pathParameter("id", ResponseId, "the response's id (resp_…)");

export const retrieveResponse: Operation = {
  tags: ["proxy"],
  summary: "A stored response",
  description: "The response object as POST /v1/responses answered it.",
  parameters: [responseId],
  responses: { 200: jsonResponse("The stored response", ResponseObject), ...errorResponses("openai", { 404: "No stored response has this id" }) },
};

export const deleteResponse: Operation = {
  tags: ["proxy"],
  summary: "Delete a stored response",
  description: "Deletes it from Relay's store (a vendor's own copy is left as it is).",
  parameters: [responseId],
  responses: { 200: jsonResponse("Deleted", ResponseDeleted), ...errorResponses("openai", { 404: "No stored response has this id" }) },
};

export const models: Operation = {
  tags: ["proxy"],
  summary: "List the virtual models and the catalog's models",
  description:
    "The virtual models, then every model the catalog knows (the price data's, the newest included) whose provider has credentials: a key Relay has, none needed, or the client's own on an Anthropic-style request (x-api-key or Authorization). OpenAI-style by default; Anthropic-style when the request carries anthropic-version. Also answered at any path containing /models.",
  parameters: [
    headerParameter("anthropic-version", "present: answer in Anthropic's model-list shape"),
    queryParameter("all", asSchema({ enum: ["true", "1"] }), "also the models of providers without credentials"),
  ],
  responses: {
    200: { description: "The models", content: { "application/json": { schema: asSchema({ oneOf: [ModelList, AnthropicModelList] }) } } },
  },
};

export const health: Operation = {
  tags: ["service"],
  summary: "Health check",
  description: "The same answer at /health, /healthz and /status.",
  responses: { 200: jsonResponse("The proxy is running", Health) },
};
