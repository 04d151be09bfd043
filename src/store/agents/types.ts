// The agent registry: agents by capability.

export interface Agent {
  id: string;
  name: string;
  capability: string;
  description: string;
  endpoint: string;
  protocol: string;
  created_at: string;
}

export interface AgentRegistry {
  insertAgent(agent: Agent): Promise<void>;
  listAgents(q: { capability?: string; limit: number; offset: number }): Promise<{ agents: Agent[]; total: number }>;
}
