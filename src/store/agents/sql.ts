// The agents table (migration 3) on either driver.
import { whereOf, type Row, type SqlConnection } from "../sql.ts";
import type { Agent, AgentRegistry } from "./types.ts";

export class SqlAgentRegistry implements AgentRegistry {
  constructor(private readonly sql: SqlConnection) {}

  async insertAgent(agent: Agent): Promise<void> {
    await this.sql.run(
      `INSERT INTO agents (id, name, capability, description, endpoint, protocol, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [agent.id, agent.name, agent.capability, agent.description, agent.endpoint, agent.protocol, agent.created_at],
    );
  }

  async listAgents(q: { capability?: string; limit: number; offset: number }): Promise<{ agents: Agent[]; total: number }> {
    const { where, params } = whereOf([["capability =", q.capability]]);
    const n = params.length;
    const rows = await this.sql.all(
      `SELECT * FROM agents${where} ORDER BY created_at, id LIMIT $${n + 1} OFFSET $${n + 2}`,
      [...params, q.limit, q.offset],
    );
    const [count] = await this.sql.all(`SELECT COUNT(*) AS total FROM agents${where}`, params);
    return { agents: rows.map(fromAgentRow), total: Number(count.total) };
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
  };
}
