// `relay hooks dev`: a local test server for webhook triggers (src/surfaces/hooks-dev.ts). It reads
// the workflows and their triggers from a JSON file, answers their trigger paths on a local port, runs
// each call's workflow in local mode (vendors called directly with the provider keys of the
// environment: OPENAI_API_KEY, RELAY_OPENAI_BASE_URL, …) and prints each run as it starts and ends.
import { readFileSync } from "node:fs";
import { CoreError } from "../../core/errors.ts";
import { systemClock } from "../../core/limits/clock.ts";
import { routeCaller, type WorkflowResult } from "../../core/workflows/index.ts";
import { createRouter } from "../../portable.ts";
import { listen } from "../../runtime/serve.ts";
import { type DevRunEvent, devHookServer, devHooks } from "../../surfaces/hooks-dev.ts";
import { UsageError, parseFlags } from "../args.ts";
import { type CommandContext, printCommandHelp } from "./context.ts";

const FLAGS = { help: { type: "boolean", short: "h" }, port: { type: "string", short: "p" }, host: { type: "string" }, file: { type: "string", short: "f" } } as const;
const DEFAULT_PORT = 4300;
/** In the printed addresses: the dev server takes any team segment. */
const TEAM = "local";

export async function hooksCommand(args: string[], ctx: CommandContext): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === undefined || sub === "--help" || sub === "-h") return printCommandHelp(ctx);
  if (sub !== "dev") throw new UsageError(`relay hooks: unknown subcommand "${sub}" (try 'relay hooks --help')`);
  const { values } = parseFlags(rest, FLAGS, "hooks dev");
  if (values.help) return printCommandHelp(ctx);
  const port = values.port === undefined ? DEFAULT_PORT : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`relay hooks dev: --port must be a port number, got ${values.port}`);
  const file = values.file ?? "workflows.json";
  const hooks = loadHooks(file);

  const router = createRouter({ env: ctx.env });
  const print = (e: DevRunEvent) => ctx.io.out(e.kind === "started" ? `→ ${e.runId} ${e.workflow} started by /${e.path}: input ${JSON.stringify(e.input)}\n` : ended(e.runId, e.result));
  const listener = listen({
    hostname: values.host ?? "127.0.0.1",
    port,
    fetch: devHookServer(hooks, { call: routeCaller(router.route), clock: systemClock, onRun: print }),
    maxRequestBodySize: 2 << 20,
    idleTimeoutSec: 30,
  });
  ctx.io.out(`relay hooks dev: ${hooks.length} trigger(s) from ${file} on ${listener.url}\n`);
  for (const h of hooks) ctx.io.out(`  ${h.trigger.config.method} ${listener.url}/hooks/${TEAM}/${h.trigger.path} → ${h.workflow.name}\n`);

  const stopped = Promise.withResolvers<number>();
  const stop = async () => {
    await listener.stop(1000);
    await router.close();
    stopped.resolve(0);
  };
  process.once("SIGINT", () => void stop());
  process.once("SIGTERM", () => void stop());
  return stopped.promise;
}

function loadHooks(file: string) {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new UsageError(`relay hooks dev: cannot read ${file}: ${(e as Error).message}`);
  }
  try {
    return devHooks(JSON.parse(text));
  } catch (e) {
    if (e instanceof SyntaxError || e instanceof CoreError) throw new UsageError(`relay hooks dev: ${file}: ${e.message}`);
    throw e;
  }
}

/** A run's end: its status and time, each step's status, routed model and output or error, and the final output. */
function ended(runId: string, r: WorkflowResult): string {
  const lines = [`${r.success ? "✓" : "✗"} ${runId} ${r.metadata.workflowName} ${r.success ? "succeeded" : "failed"} in ${Math.round(r.metadata.duration)} ms`];
  for (const [name, s] of Object.entries(r.steps)) {
    lines.push(`  ${name}: ${s.status} (${s.routedModel ?? s.model}, ${s.tokens.total} tokens, ${Math.round(s.latency)} ms) ${s.error ? `error: ${s.error.message}` : JSON.stringify(s.output)}`);
  }
  lines.push(r.success ? `  output: ${JSON.stringify(r.finalOutput)}` : `  error: ${r.error?.message}${r.error?.stepName ? ` (step ${r.error.stepName})` : ""}`);
  return `${lines.join("\n")}\n`;
}
