// `relay logs`: recent runs from the server's run log, oldest first like a
// tail; --follow keeps polling and prints only runs it has not shown yet.
import type { RunRecord } from "../../core/run-record.ts";
import { UsageError, parseFlags } from "../args.ts";
import { type Style, formatUsd, styleFor } from "../output.ts";
import { RelayClient } from "./client.ts";
import { type CommandContext, SERVER_FLAGS, loadCommandConfig, printCommandHelp } from "./context.ts";

const FLAGS = { ...SERVER_FLAGS, follow: { type: "boolean", short: "f" }, json: { type: "boolean" }, limit: { type: "string", short: "n" } } as const;
const POLL_MS = 1_000;
/** Runs fetched per poll: more than a busy second writes, so none are skipped. */
const FOLLOW_PAGE = 200;

interface RunsPage {
  runs: RunRecord[];
  total: number;
}

export async function logsCommand(args: string[], ctx: CommandContext): Promise<number> {
  const { values } = parseFlags(args, FLAGS, "logs");
  if (values.help) return printCommandHelp(ctx);
  const limit = values.limit === undefined ? 20 : count(values.limit);
  const client = new RelayClient(loadCommandConfig(values, ctx.env).config, ctx.env);
  const s = styleFor(ctx.term);
  const print = (runs: RunRecord[]) => {
    // The server answers newest first.
    for (const run of [...runs].reverse()) ctx.io.out(values.json ? `${JSON.stringify(run)}\n` : formatRun(run, s));
  };
  // When following, the first page also marks older runs as seen, so they are not printed later.
  const first = await client.get<RunsPage>(`/v1/telemetry/runs?limit=${values.follow ? Math.max(limit, FOLLOW_PAGE) : limit}&offset=0`);
  print(first.runs.slice(0, limit));
  if (!values.follow) return 0;

  // Runs are written in batches, so a later poll can bring a run older than one
  // already shown: remember ids, not a timestamp. A run that has left the page
  // cannot come back to it, so the current page's ids are enough.
  let seen = new Set(first.runs.map((r) => r.id));
  for (;;) {
    await Bun.sleep(POLL_MS);
    const page = await client.get<RunsPage>(`/v1/telemetry/runs?limit=${FOLLOW_PAGE}&offset=0`);
    print(page.runs.filter((r) => !seen.has(r.id)));
    seen = new Set(page.runs.map((r) => r.id));
  }
}

function count(v: string): number {
  if (!/^\d+$/.test(v) || Number(v) < 1 || Number(v) > 1000) throw new UsageError(`--limit: expected a whole number from 1 to 1000, got ${JSON.stringify(v)}`);
  return Number(v);
}

function formatRun(r: RunRecord, s: Style): string {
  const time = new Date(r.ts).toISOString().replace("T", " ").slice(0, 19);
  const status = r.outcome === "ok" ? s.green(String(r.status)) : s.red(String(r.status));
  const model = r.requestedModel === r.routedModel ? r.routedModel : `${r.requestedModel} → ${r.routedModel}`;
  const extra = [r.stream ? "stream" : "", r.fallbackUsed ? s.yellow("fallback") : "", r.error ? s.red(r.error) : ""].filter(Boolean).join(" ");
  return `${s.dim(time)} ${status} ${s.cyan(model)} ${s.dim(`(${r.provider || "-"})`)} ${r.inputTokens}→${r.outputTokens} tok ${formatUsd(r.costUsd)} ${r.latencyMs}ms${extra ? ` ${extra}` : ""}\n`;
}
