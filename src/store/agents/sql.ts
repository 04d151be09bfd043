// The agents and agent_labels tables (migrations 3 and 7) on either driver.
import type { Row, SqlConnection } from "../sql.ts";
import type { Agent, AgentQuery, AgentRegistry, StoredAgent } from "./types.ts";

export class SqlAgentRegistry implements AgentRegistry {
  constructor(private readonly sql: SqlConnection) {}

  async insertAgent(a: StoredAgent): Promise<void> {
    // Labels first: the agent is listed only once its row exists, and then its labels do too.
    for (const label of new Set([a.capability, ...a.labels])) {
      await this.sql.run("INSERT INTO agent_labels (agent_id, label) VALUES ($1, $2)", [a.id, label]);
    }
    await this.sql.run(
      `INSERT INTO agents (id, name, capability, description, endpoint, protocol, created_at, team_id, is_public, card)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [a.id, a.name, a.capability, a.description, a.endpoint, a.protocol, a.created_at, a.team_id, a.public, a.card],
    );
  }

  async listAgents(q: AgentQuery): Promise<{ agents: Agent[]; total: number }> {
    const clauses: string[] = [];
    const params: unknown[] = [];
    if (q.team !== undefined) {
      params.push(q.team);
      clauses.push(`(team_id = $${params.length} OR is_public = TRUE)`);
    }
    if (q.capability !== undefined) {
      params.push(q.capability);
      clauses.push(`EXISTS (SELECT 1 FROM agent_labels l WHERE l.agent_id = agents.id AND l.label = $${params.length})`);
    }
    const where = clauses.length === 0 ? "" : ` WHERE ${clauses.join(" AND ")}`;
    const n = params.length;
    const rows = await this.sql.all(
      `SELECT id, name, capability, description, endpoint, protocol, created_at, is_public FROM agents${where}
       ORDER BY created_at, id LIMIT $${n + 1} OFFSET $${n + 2}`,
      [...params, q.limit, q.offset],
    );
    const [count] = await this.sql.all(`SELECT COUNT(*) AS total FROM agents${where}`, params);
    return { agents: rows.map(fromAgentRow), total: Number(count!.total) };
  }
}

function fromAgentRow(row: Row): Agent {
  return {
    id: String(row.id),
    name: String(row.name),
    capability: String(row.capability),
    description: String(row.description),
    endpoint: String(row.endpoint),
    protocol: String(row.protocol),
    created_at: String(row.created_at),
    public: Boolean(row.is_public),
  };
}
