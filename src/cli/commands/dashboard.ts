// `relay dashboard`: prints a link that signs this browser in to the dashboard.
// The token travels in the URL's fragment, which the browser never sends to a
// server (so it is in no server or proxy log); the login page's own script
// trades it for the listener's session cookie and removes it from the address bar.
import { parseFlags } from "../args.ts";
import { adminToken, serverUrl } from "./client.ts";
import { type CommandContext, SERVER_FLAGS, loadCommandConfig, printCommandHelp } from "./context.ts";

export async function dashboardCommand(args: string[], ctx: CommandContext): Promise<number> {
  const { values } = parseFlags(args, SERVER_FLAGS, "dashboard");
  if (values.help) return printCommandHelp(ctx);
  const { config } = loadCommandConfig(values, ctx.env);
  const url = serverUrl(config);
  const running = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2_000) }).then((r) => r.ok, () => false);
  // The one output that must show a secret: everything else a command prints is scrubbed (main.ts).
  (ctx.io.unscrubbed ?? ctx.io.out)(`Open this link to sign in to the dashboard (it holds the admin token: do not share it):\n\n  ${url}/dashboard/login#${adminToken(config, ctx.env)}\n\n`);
  if (!running) ctx.io.out(`Relay is not answering at ${url} yet; start it with 'relay start'.\n`);
  return 0;
}
