// The body of POST /api/register (spec §2.3, §4.1) → the agent to store. Either the five fields
// (name, capability, description, endpoint, protocol), or an A2A Agent Card (inline in `card`, or
// fetched from `card_url` by the caller: card-url.ts) that supplies them: name, description,
// endpoint from its url, protocol from its transport, capability from its first skill's id. A field
// sent beside a card wins over the card's. `public: true` lets every team discover the agent
// (default: its own team only).
import { prefixedId } from "../ids.ts";
import type { StoredAgent } from "../../store/agents/types.ts";
import { type CheckedCard, checkCard } from "./a2a-card.ts";
import { bool, httpUrl, invalid, text } from "./fields.ts";

export function newAgent(body: Record<string, unknown>, team: string, now: string, fetched?: CheckedCard): StoredAgent {
  const card = fetched ?? (body.card === undefined ? undefined : checkCard(body.card));
  const capability = body.capability ?? card?.skillIds[0];
  if (card && capability === undefined) throw invalid("capability", undefined, "string", "is required when the card has no skills");
  return {
    id: prefixedId("agent"),
    name: text(body.name ?? card?.name, "name", 200),
    capability: text(capability, "capability", 100),
    description: text(body.description ?? card?.description, "description", 4000),
    endpoint: httpUrl(body.endpoint ?? card?.url, "endpoint"),
    protocol: text(body.protocol ?? card?.transport, "protocol", 64),
    created_at: now,
    public: body.public === undefined ? false : bool(body.public, "public"),
    team_id: team,
    card: card ? JSON.stringify(card.card) : null,
    labels: card?.labels ?? [],
  };
}
