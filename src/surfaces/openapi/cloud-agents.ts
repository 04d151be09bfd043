// OpenAPI operations of the agent registry (src/surfaces/cloud/agents.ts), spec §2.3–2.4 and §4.1.
import { Type as T } from "@sinclair/typebox";
import { guarded } from "./cloud-keys.ts";
import { errorResponses, headerParameter, jsonRequestBody, jsonResponse, queryParameter } from "./common.ts";

const Agent = T.Object(
  {
    id: T.String({ pattern: "^agent_" }),
    name: T.String(),
    capability: T.String({ description: "the label discover filters by" }),
    description: T.String(),
    endpoint: T.String({ format: "uri", description: "where the agent answers (http or https); never fetched by Relay" }),
    protocol: T.String({ description: "transport label, e.g. http, or the card's A2A transport (JSONRPC when the card names none)" }),
    created_at: T.String({ format: "date-time" }),
    public: T.Boolean({ description: "whether every team may discover it" }),
  },
  { $id: "Agent" },
);

const Skill = T.Object(
  { id: T.String(), name: T.String(), description: T.String(), tags: T.Array(T.String()) },
  { additionalProperties: true },
);

const AgentCard = T.Object(
  {
    name: T.String(),
    description: T.String(),
    url: T.Optional(T.String({ format: "uri", description: "A2A 0.x; or supportedInterfaces[0].url (A2A 1.0)" })),
    version: T.String(),
    capabilities: T.Object({}, { additionalProperties: true }),
    defaultInputModes: T.Array(T.String()),
    defaultOutputModes: T.Array(T.String()),
    skills: T.Array(Skill),
  },
  { $id: "A2AAgentCard", additionalProperties: true, description: "An A2A Agent Card, kept as sent; its skill ids and tags are matched by discover's capability filter" },
);

const NewAgent = T.Object(
  {
    name: T.Optional(T.String({ maxLength: 200 })),
    capability: T.Optional(T.String({ maxLength: 100 })),
    description: T.Optional(T.String({ maxLength: 4000 })),
    endpoint: T.Optional(T.String({ format: "uri" })),
    protocol: T.Optional(T.String({ maxLength: 64 })),
    public: T.Optional(T.Boolean({ default: false })),
    card: T.Optional(AgentCard),
    card_url: T.Optional(
      T.String({
        format: "uri",
        maxLength: 2048,
        description:
          "where to fetch the agent's A2A Agent Card instead of sending it inline (not both), usually https://<agent host>/.well-known/agent-card.json. Fetched once, at registration: public addresses only (loopback, private, link-local and other non-public addresses are refused unless the operator set cloud.allowPrivateNetworks), no redirect followed, 5 s, 256 KB, a JSON content type",
      }),
    ),
  },
  {
    $id: "NewAgent",
    description:
      "Without a card (inline or by card_url), name, capability, description, endpoint and protocol are required. With a card, they default to the card's name, first skill id, description, url and transport; a field given beside the card wins.",
  },
);

const Discovered = T.Object({ agents: T.Array(Agent), total: T.Integer(), limit: T.Integer(), offset: T.Integer() }, { $id: "DiscoverResult" });

export const register = guarded(
  {
    summary: "Register an agent",
    description: "Stores an agent of the caller's team. With an Idempotency-Key, a retry of the same request answers the first agent again instead of registering twice.",
    parameters: [headerParameter("Idempotency-Key", "up to 255 characters; the first successful answer is replayed (Idempotent-Replayed: true) for the same request")],
    requestBody: jsonRequestBody(NewAgent),
    responses: {
      201: jsonResponse("The agent", Agent),
      ...errorResponses("spec", {
        400:
          "a field is missing or invalid (details.parameter names it, details.expected its type); for card_url: unsafe_url (not http(s), credentials in it, a non-public address, a redirect), url_unreachable (does not resolve, no answer, timeout, a status other than 200), response_too_large (over 256 KB), invalid_request (not JSON, or not a valid Agent Card: the message names the card's field)",
        409: "a request with this Idempotency-Key is still running (idempotency_key_in_use)",
        413: "body over 256 KB (request_too_large)",
        422: "this Idempotency-Key was used for a different request (idempotency_key_reused)",
      }),
    },
  },
  false,
);

export const discover = guarded(
  {
    summary: "Discover agents",
    description: "The team's agents and every public one, oldest first (created_at, then id).",
    parameters: [
      queryParameter("capability", T.String(), "agents with this capability, or whose card has a skill with this id or tag"),
      queryParameter("limit", T.Integer({ minimum: 1, default: 50 }), "page size; above 100 counts as 100; echoed"),
      queryParameter("offset", T.Integer({ minimum: 0, default: 0 }), "agents to skip; echoed"),
    ],
    responses: { 200: jsonResponse("A page of agents", Discovered), ...errorResponses("spec", { 400: "limit or offset is not a valid integer (details.parameter names it)" }) },
  },
  false,
);
