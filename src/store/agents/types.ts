// The agent registry: agents by team and capability (spec §2.3–2.4).

/** An agent as the hosted API answers it: §2.3's fields, and whether other teams may discover it. */
export interface Agent {
  id: string;
  name: string;
  capability: string;
  description: string;
  endpoint: string;
  protocol: string;
  created_at: string;
  public: boolean;
}

/** An agent as stored: its team, the A2A card it was registered with (JSON), and the labels discover matches. */
export interface StoredAgent extends Agent {
  team_id: string | null;
  card: string | null;
  /** The capability, and a card's skill ids and tags. */
  labels: readonly string[];
}

export interface AgentQuery {
  /** Only this team's agents and public ones; every agent when absent. */
  team?: string;
  /** Agents with this label (capability, skill id or skill tag). */
  capability?: string;
  limit: number;
  offset: number;
}

export interface AgentRegistry {
  insertAgent(agent: StoredAgent): Promise<void>;
  /** In a stable order: created_at, then id. */
  listAgents(q: AgentQuery): Promise<{ agents: Agent[]; total: number }>;
}
