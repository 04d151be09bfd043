// `relay budget`: hourly and daily limits and spend; `relay budget set` changes
// the limits through the running server, which validates and saves them.
import type { BudgetWindowStatus } from "../../core/limits/budget.ts";
import { UsageError, parseFlags } from "../args.ts";
import { formatUsd, renderTable, styleFor } from "../output.ts";
import { RelayClient } from "./client.ts";
import { type CommandContext, SERVER_FLAGS, loadCommandConfig, printCommandHelp } from "./context.ts";
import type { ControlStats } from "./status.ts";
import { usd } from "./values.ts";

const FLAGS = { ...SERVER_FLAGS, daily: { type: "string" }, hourly: { type: "string" } } as const;

export async function budgetCommand(args: string[], ctx: CommandContext): Promise<number> {
  const { values, positionals } = parseFlags(args, FLAGS, "budget");
  if (values.help) return printCommandHelp(ctx);
  const [action, ...extra] = positionals;
  if (extra.length || (action !== undefined && action !== "set")) throw new UsageError(`relay budget: unexpected argument "${extra[0] ?? action}" (try 'relay budget --help')`);
  const limits = action === "set" ? limitsPatch(values) : undefined;
  if (!limits && (values.daily !== undefined || values.hourly !== undefined)) throw new UsageError("relay budget: --daily/--hourly belong to 'relay budget set'");
  const client = new RelayClient(loadCommandConfig(values, ctx.env).config, ctx.env);
  if (limits) await client.post("/control/config", { limits });
  const { budget } = await client.get<ControlStats>("/control/stats");
  const s = styleFor(ctx.term);
  if (limits) ctx.io.out(`${s.green("✓")} budget saved to the server's config file\n`);
  const row = (name: string, w: BudgetWindowStatus) => [
    name,
    w.limitUsd ? formatUsd(w.limitUsd) : s.dim("none"),
    formatUsd(w.spentUsd),
    formatUsd(w.reservedUsd),
    w.limitUsd ? formatUsd(Math.max(0, w.limitUsd - w.spentUsd - w.reservedUsd)) : s.dim("-"),
    `${Math.ceil(w.resetsInSec / 60)} min`,
  ];
  const right = "right" as const;
  ctx.io.out(
    renderTable(
      [{ title: "WINDOW" }, { title: "LIMIT", align: right }, { title: "SPENT", align: right }, { title: "IN FLIGHT", align: right }, { title: "LEFT", align: right }, { title: "RESETS IN", align: right }],
      [row("hourly", budget.hourly), row("daily", budget.daily)],
      s,
    ),
  );
  if (!budget.hourly.limitUsd && !budget.daily.limitUsd) ctx.io.out(s.dim("No limits set: spend is counted against these windows only while one is ('relay status' shows 24h spend).\n"));
  return 0;
}

/** `{dailyUsd, hourlyUsd}` from --daily/--hourly; 0 removes a limit. */
function limitsPatch(values: { daily?: string; hourly?: string }): Record<string, number> {
  const patch: Record<string, number> = {};
  if (values.daily !== undefined) patch.dailyUsd = usd(values.daily, "--daily");
  if (values.hourly !== undefined) patch.hourlyUsd = usd(values.hourly, "--hourly");
  if (!Object.keys(patch).length) throw new UsageError("relay budget set: give --daily N and/or --hourly N (USD; 0 = no limit)");
  return patch;
}
