// `relay cloud users …` and `relay cloud teams set-cloud`: the operator's account tools (issue 38
// item 1). No mail can be sent, so a forgotten password is reset here: a new random password is
// printed once (unscrubbed, like a new key's secret), or one is read from stdin (--stdin) so that it
// appears in no terminal or shell history. A reset revokes every access token of the user.
import { accountSettings, resetPassword } from "../../core/tenancy/accounts.ts";
import { publicUser } from "../../core/tenancy/accounts-tokens.ts";
import { CoreError } from "../../core/errors.ts";
import { secretToken } from "../../core/ids.ts";
import type { Config } from "../../config/schema.ts";
import type { Store } from "../../store/types.ts";
import { UsageError } from "../args.ts";
import { renderTable, styleFor } from "../output.ts";
import type { CommandContext } from "./context.ts";

type Values = { json?: boolean; team?: string; stdin?: boolean };
type Action = (store: Store, values: Values, positionals: string[], ctx: CommandContext, config: Config) => Promise<number>;

async function readStdin(): Promise<string> {
  let text = "";
  for await (const chunk of process.stdin) text += typeof chunk === "string" ? chunk : new TextDecoder().decode(chunk);
  // A trailing newline (echo, a here-string) is not part of the password.
  return text.replace(/\r?\n$/, "");
}

export const USER_ACTIONS: Record<string, Action> = {
  "users list": async (store, v, _, ctx) => {
    const teams = v.team ? [v.team] : (await store.teams.listTeams()).map((t) => t.id);
    const users = (await Promise.all(teams.map((t) => store.accounts.listUsers(t)))).flat().map(publicUser);
    if (v.json) ctx.io.out(`${JSON.stringify({ users })}\n`);
    else ctx.io.out(renderTable([{ title: "USER" }, { title: "EMAIL" }, { title: "TEAM" }, { title: "ROLE" }, { title: "CREATED" }], users.map((u) => [u.id, u.email, u.team_id, u.role, u.created_at]), styleFor(ctx.term)));
    return 0;
  },
  "users reset-password": async (store, v, [email], ctx, config) => {
    if (!email) throw new UsageError("relay cloud users reset-password: expected EMAIL");
    const password = v.stdin ? await readStdin() : secretToken(18);
    let user;
    try {
      user = await resetPassword(store.accounts, accountSettings(config.cloud.accounts).cost, email, password, Date.now());
    } catch (e) {
      if (!(e instanceof CoreError)) throw e;
      ctx.io.err(`relay cloud: ${e.message}\n`);
      return 1;
    }
    const print = ctx.io.unscrubbed ?? ctx.io.out;
    if (v.json) print(`${JSON.stringify({ user: publicUser(user), ...(v.stdin ? {} : { password }) })}\n`);
    else {
      ctx.io.out(`${user.email} (${user.id}): password reset; every access token of the user is revoked\n`);
      if (!v.stdin) print(`new password, shown this once: ${password}\n`);
    }
    return 0;
  },
  "teams set-cloud": async (store, v, [team, state], ctx) => {
    if (!team || (state !== "on" && state !== "off")) throw new UsageError("relay cloud teams set-cloud: expected TEAM on|off");
    if (!(await store.accounts.setCloudEnabled(team, state === "on"))) {
      ctx.io.err(`relay cloud: no team ${team}\n`);
      return 1;
    }
    ctx.io.out(v.json ? `${JSON.stringify({ team: { id: team, cloud_enabled: state === "on" } })}\n` : `Cloud features are ${state} for ${team}\n`);
    return 0;
  },
};
