// `relay cloud teams …` and `relay cloud keys …`: the operator's tenancy tools, run on the configured
// store directly (no server needed; SQLite's WAL lets a running `relay cloud` share the file). A
// key's secret is printed once, at creation, unscrubbed: it is the one output whose purpose is a
// secret; everything else goes through the scrubbing output like every command's.
import { createKey, createTeam, keyTypeOf, publicKey, rotateKey, type MintedKey } from "../../core/tenancy/api-keys.ts";
import { PLAN_NAMES, isPlanName, type PlanName } from "../../core/tenancy/plans.ts";
import { openConfiguredStore } from "../../store/open.ts";
import type { ApiKey } from "../../store/keys/types.ts";
import type { Team } from "../../store/teams/types.ts";
import type { Store } from "../../store/types.ts";
import { COMMON_FLAGS, UsageError, parseFlags } from "../args.ts";
import { renderTable, styleFor } from "../output.ts";
import { type CommandContext, loadCommandConfig, printCommandHelp } from "./context.ts";
import { USER_ACTIONS } from "./cloud-users.ts";
import type { Config } from "../../config/schema.ts";

const FLAGS = {
  ...COMMON_FLAGS,
  json: { type: "boolean" },
  name: { type: "string" },
  plan: { type: "string" },
  stdin: { type: "boolean" },
  team: { type: "string" },
  type: { type: "string" },
} as const;

type Values = { [K in keyof typeof FLAGS]?: (typeof FLAGS)[K]["type"] extends "boolean" ? boolean : string };
type Action = (store: Store, values: Values, positionals: string[], ctx: CommandContext, config: Config) => Promise<number>;

const ACTIONS: Record<string, Action> = {
  ...USER_ACTIONS,
  "teams create": async (store, v, _, ctx) => {
    if (!v.name) throw new UsageError("relay cloud teams create: --name is required");
    const made = await createTeam(store, v.name, planOf(v.plan ?? "free"));
    return printMinted(made, v, ctx, made.team);
  },
  "teams set-plan": async (store, v, [team, plan], ctx) => {
    if (!team || !plan) throw new UsageError("relay cloud teams set-plan: expected TEAM PLAN");
    if (!(await store.teams.setPlan(team, planOf(plan)))) return fail(ctx, `no team ${team}`);
    const updated = (await store.teams.getTeam(team))!;
    ctx.io.out(v.json ? `${JSON.stringify({ team: updated })}\n` : `${updated.id} is on the ${updated.plan} plan\n`);
    return 0;
  },
  "teams list": async (store, v, _, ctx) => {
    const teams = await store.teams.listTeams();
    if (v.json) ctx.io.out(`${JSON.stringify({ teams })}\n`);
    else ctx.io.out(renderTable([{ title: "TEAM" }, { title: "NAME" }, { title: "PLAN" }, { title: "CREATED" }], teams.map((t) => [t.id, t.name, t.plan, t.created_at]), styleFor(ctx.term)));
    return 0;
  },
  "keys create": async (store, v, _, ctx) => {
    if (!v.team) throw new UsageError("relay cloud keys create: --team is required");
    const type = keyTypeOf(v.type ?? "standard");
    if (!type) throw new UsageError(`relay cloud keys create: --type: expected standard or read-only, got ${JSON.stringify(v.type)}`);
    if (!(await store.teams.getTeam(v.team))) return fail(ctx, `no team ${v.team}`);
    return printMinted(await createKey(store.apiKeys, v.team, type, v.name ?? ""), v, ctx);
  },
  "keys list": async (store, v, _, ctx) => {
    if (!v.team) throw new UsageError("relay cloud keys list: --team is required");
    const keys = (await store.apiKeys.listKeys(v.team)).map(publicKey);
    if (v.json) ctx.io.out(`${JSON.stringify({ keys })}\n`);
    else ctx.io.out(renderTable(KEY_COLUMNS, keys.map(keyRow), styleFor(ctx.term)));
    return 0;
  },
  "keys rotate": async (store, v, [id], ctx) => {
    const old = await existingKey(store, id, "rotate");
    if (!old) return fail(ctx, `no key ${id}`);
    if (old.revoked_at) return fail(ctx, `key ${id} is revoked; create a new key with 'relay cloud keys create'`);
    const code = printMinted(await rotateKey(store.apiKeys, old), v, ctx);
    if (!v.json) ctx.io.err(`${old.id} stays valid until you revoke it: relay cloud keys revoke ${old.id}\n`);
    return code;
  },
  "keys revoke": async (store, v, [id], ctx) => {
    const key = await existingKey(store, id, "revoke");
    if (!key) return fail(ctx, `no key ${id}`);
    await store.apiKeys.revokeKey(key.id, new Date().toISOString());
    const revoked = publicKey((await store.apiKeys.getKey(key.id))!);
    ctx.io.out(v.json ? `${JSON.stringify({ key: revoked })}\n` : `${revoked.id} revoked at ${revoked.revoked_at}\n`);
    return 0;
  },
};

const KEY_COLUMNS = [{ title: "KEY" }, { title: "TYPE" }, { title: "NAME" }, { title: "PREFIX" }, { title: "CREATED" }, { title: "REVOKED" }];
const keyRow = (k: Omit<ApiKey, "hash">) => [k.id, k.type, k.name, k.prefix, k.created_at, k.revoked_at ?? ""];

/** Whether argv is one of these subcommands (`relay cloud` alone runs the server). */
export const isCloudAdmin = (args: string[]): boolean => args[0] === "teams" || args[0] === "keys" || args[0] === "users";

export async function cloudAdminCommand(args: string[], ctx: CommandContext): Promise<number> {
  const { values, positionals } = parseFlags(args, FLAGS, "cloud");
  if (values.help) return printCommandHelp(ctx);
  const [noun, verb, ...rest] = positionals;
  const action = ACTIONS[`${noun} ${verb}`];
  if (!action) throw new UsageError(`relay cloud ${noun}: unknown subcommand ${JSON.stringify(verb ?? "")} (try 'relay cloud --help')`);
  const { config } = loadCommandConfig(values, ctx.env, "cloud");
  const store = await openConfiguredStore(config, ctx.env, (message) => ctx.io.err(`${message}\n`));
  try {
    return await action(store, values, rest, ctx, config);
  } finally {
    await store.close();
  }
}

function planOf(v: string): PlanName {
  if (!isPlanName(v)) throw new UsageError(`relay cloud: plan: expected one of ${PLAN_NAMES.join(", ")}, got ${JSON.stringify(v)}`);
  return v;
}

async function existingKey(store: Store, id: string | undefined, verb: string): Promise<ApiKey | undefined> {
  if (!id) throw new UsageError(`relay cloud keys ${verb}: expected KEY (key_…)`);
  return store.apiKeys.getKey(id);
}

function fail(ctx: CommandContext, message: string): number {
  ctx.io.err(`relay cloud: ${message}\n`);
  return 1;
}

/** A new key (and its team, when one was made): the secret once, unscrubbed. */
function printMinted({ key, secret }: MintedKey, v: Values, ctx: CommandContext, team?: Team): number {
  const print = ctx.io.unscrubbed ?? ctx.io.out;
  if (v.json) {
    print(`${JSON.stringify({ ...(team ? { team } : {}), key: publicKey(key), api_key: secret })}\n`);
    return 0;
  }
  if (team) ctx.io.out(`team ${team.id} "${team.name}" on the ${team.plan} plan\n`);
  ctx.io.out(`key  ${key.id} (${key.type}${key.name ? `, ${key.name}` : ""}) of ${key.team_id}\n`);
  print(`api key, shown this once (send it as x-api-key): ${secret}\n`);
  return 0;
}
