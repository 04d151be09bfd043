// The agent registry over the hosted API (spec §2.3–2.4, §4.1; issue 37 item 3): POST /api/register
// stores an agent of the caller's team (five fields or an A2A Agent Card; src/core/registry/), and
// GET /api/discover lists the team's agents and public ones, filtered by capability (which also
// matches a card's skill ids and tags), oldest first. Both are core routes: standard keys only.
// The registry never fetches an agent's endpoint; a card given by URL (card_url) is fetched once, at
// registration, through the SSRF guard (src/core/registry/card-url.ts).
import { Elysia } from "elysia";
import { cardFromUrl } from "../../core/registry/card-url.ts";
import { newAgent } from "../../core/registry/new-agent.ts";
import type { Relay } from "../../relay.ts";
import type { Agent, StoredAgent } from "../../store/agents/types.ts";
import { json } from "../http.ts";
import * as docs from "../openapi/cloud-agents.ts";
import { CORE, guarded, type HostedHandler } from "./auth.ts";
import { hostedText, jsonObjectOf } from "./errors.ts";
import { idempotent } from "./idempotency.ts";
import { pageOf } from "./paging.ts";

/** A card with a hundred skills fits with room to spare. */
const BODY_LIMIT = 256 * 1024;

function publicAgent(a: StoredAgent): Agent {
  return { id: a.id, name: a.name, capability: a.capability, description: a.description, endpoint: a.endpoint, protocol: a.protocol, created_at: a.created_at, public: a.public };
}

export function agentRoutes(relay: Relay) {
  const agents = relay.store.agents;
  return new Elysia({ name: "cloud-agents" })
    .post("/api/register", guarded(relay, CORE, async (request, auth) => {
      const text = await hostedText(request, BODY_LIMIT);
      return idempotent(relay, auth.team.id, request, text, async () => {
        const body = jsonObjectOf(text);
        const fetched = await cardFromUrl(body, relay.config().cloud.allowPrivateNetworks);
        const agent = newAgent(body, auth.team.id, new Date().toISOString(), fetched);
        await agents.insertAgent(agent);
        return json(publicAgent(agent), 201);
      });
    }), { parse: "none", detail: docs.register })
    .get("/api/discover", guarded(relay, CORE, discover(relay)), { detail: docs.discover });
}

/** GET /api/discover's handler, which the team console serves too. */
export const discover = (relay: Relay): HostedHandler => async (request, auth) => {
  const query = new URL(request.url).searchParams;
  const { limit, offset } = pageOf(query);
  const capability = query.get("capability") || undefined;
  const page = await relay.store.agents.listAgents({ team: auth.team.id, capability, limit, offset });
  return json({ agents: page.agents, total: page.total, limit, offset });
};
