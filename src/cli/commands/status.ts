// `relay status`: is the configured server up, is routing on, what has it spent today.
import type { BudgetStatus } from "../../core/limits/budget.ts";
import type { RunTotals } from "../../store/runs/types.ts";
import { parseFlags } from "../args.ts";
import { formatUsd, styleFor } from "../output.ts";
import { RelayClient, ServerError } from "./client.ts";
import { type CommandContext, SERVER_FLAGS, loadCommandConfig, printCommandHelp } from "./context.ts";

interface Health {
  status: string;
  version: string;
  uptime: number;
  routing: "enabled" | "disabled";
}
interface ControlStatus {
  providers: Array<{ provider: string; state: string }>;
}
export interface ControlStats {
  totals: RunTotals;
  budget: BudgetStatus;
}

export async function statusCommand(args: string[], ctx: CommandContext): Promise<number> {
  const { values } = parseFlags(args, SERVER_FLAGS, "status");
  if (values.help) return printCommandHelp(ctx);
  const { config } = loadCommandConfig(values, ctx.env);
  const client = new RelayClient(config, ctx.env);
  const s = styleFor(ctx.term);
  let health: Health;
  try {
    health = await client.get<Health>("/health");
  } catch (e) {
    if (!(e instanceof ServerError)) throw e;
    ctx.io.out(`${s.red("●")} Relay is not running at ${client.url}\n`);
    return 1;
  }
  const [status, stats] = await Promise.all([client.get<ControlStatus>("/control/status"), client.get<ControlStats>("/control/stats")]);
  const { totals } = stats;
  const daily = stats.budget.daily;
  // The budget guard counts spend only while a limit is set; the run log always does.
  const budget = daily.limitUsd ? `${formatUsd(daily.spentUsd)} of ${formatUsd(daily.limitUsd)} daily budget spent today (UTC)` : s.dim("no daily budget");
  const available = status.providers.filter((p) => p.state === "available").map((p) => p.provider);
  const routing = health.routing === "enabled" ? s.green("enabled") : s.yellow("disabled");
  ctx.io.out(
    [
      `${s.green("●")} Relay ${health.version} is running at ${client.url} (up ${duration(health.uptime)})`,
      `  port:       ${config.server.port}`,
      `  routing:    ${routing}`,
      `  spend:      ${formatUsd(totals.costUsd)} in the last 24h (${totals.requests} requests, ${totals.errors} failed)`,
      `  budget:     ${budget}`,
      `  providers:  ${available.length ? available.join(", ") : s.yellow("none with credentials")}`,
    ].join("\n") + "\n",
  );
  return 0;
}

function duration(sec: number): string {
  if (sec < 60) return `${sec}s`;
  if (sec < 3600) return `${Math.floor(sec / 60)}m`;
  if (sec < 86_400) return `${Math.floor(sec / 3600)}h ${Math.floor((sec % 3600) / 60)}m`;
  return `${Math.floor(sec / 86_400)}d ${Math.floor((sec % 86_400) / 3600)}h`;
}
