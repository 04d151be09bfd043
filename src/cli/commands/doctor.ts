// `relay doctor`: is this machine ready to run Relay? Prints a pass/fail table
// and exits 1 when any check fails.
import { builtinProviders } from "../../providers/index.ts";
import { parseFlags } from "../args.ts";
import { renderTable, startSpinner, styleFor } from "../output.ts";
import { type CommandContext, SERVER_FLAGS, loadCommandConfig, printCommandHelp } from "./context.ts";
import { type CheckResult, checkConfig, checkKeys, checkLoops, checkPlugins, checkPort, checkReachable, configuredProviders } from "./doctor-checks.ts";

export async function doctorCommand(args: string[], ctx: CommandContext): Promise<number> {
  const { values } = parseFlags(args, SERVER_FLAGS, "doctor");
  if (values.help) return printCommandHelp(ctx);
  const { env } = ctx;
  const { result: configResult, config } = checkConfig(() => loadCommandConfig(values, env));
  const spinner = startSpinner(ctx.term, "checking providers, port and plugins…", ctx.io.err);
  let network: CheckResult[][];
  try {
    network = await Promise.all([
      Promise.all(configuredProviders(builtinProviders, config, env).map((p) => checkReachable(p, config, env))),
      checkPort(config).then((r) => [r]),
      checkPlugins(config, env),
    ]);
  } finally {
    spinner.stop();
  }
  const results = [configResult, ...checkKeys(builtinProviders, config, env), ...checkLoops(builtinProviders, config, env), ...network.flat()];

  const s = styleFor(ctx.term);
  const label = { pass: s.green("PASS"), fail: s.red("FAIL"), skip: s.dim("SKIP") };
  ctx.io.out(renderTable([{ title: "RESULT" }, { title: "CHECK" }, { title: "DETAIL" }], results.map((r) => [label[r.outcome], r.check, r.outcome === "skip" ? s.dim(r.detail) : r.detail]), s));
  const failed = results.filter((r) => r.outcome === "fail").length;
  ctx.io.out(failed ? s.red(`\n${failed} check${failed === 1 ? "" : "s"} failed\n`) : s.green("\nall checks passed\n"));
  return failed ? 1 : 0;
}
