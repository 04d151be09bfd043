// `relay models`: the virtual models and the catalog this configuration routes over, with prices —
// by default, as GET /v1/models lists them, only models whose provider has a key (or needs none).
import type { Config } from "../../config/schema.ts";
import { pluginDirs } from "../../config/paths.ts";
import { createLogger } from "../../core/log.ts";
import { providerReady } from "../../core/router/credentials.ts";
import type { ModelInfo } from "../../plugin/api.ts";
import { assembleRegistry, buildCatalog } from "../../plugin/assemble.ts";
import { loadPlugins } from "../../plugin/host.ts";
import type { Registry } from "../../plugin/registry.ts";
import { parseFlags } from "../args.ts";
import { renderTable, type Style, styleFor } from "../output.ts";
import { CONFIG_FLAGS, type CommandContext, type Env, loadCommandConfig, printCommandHelp } from "./context.ts";

const FLAGS = { ...CONFIG_FLAGS, json: { type: "boolean" }, all: { type: "boolean" } } as const;

/** What `relay start` would serve: the built-ins and the user plugins (`relay doctor` reports the ones that fail). */
async function registryAndCatalog(config: Config, env: Env) {
  const { loaded } = await loadPlugins(pluginDirs(config, env));
  const { registry, registered } = assembleRegistry(loaded, createLogger("error", () => {}));
  return { registry, catalog: buildCatalog(config, registry, registered) };
}

function readyProviders(registry: Registry, config: Config, env: Env): Set<string> {
  const ready = new Set<string>();
  for (const p of registry.providers.values()) if (providerReady(p, config, env)) ready.add(p.name);
  return ready;
}

export async function modelsCommand(args: string[], ctx: CommandContext): Promise<number> {
  const { values } = parseFlags(args, FLAGS, "models");
  if (values.help) return printCommandHelp(ctx);
  const { config } = loadCommandConfig(values, ctx.env);
  const { registry, catalog } = await registryAndCatalog(config, ctx.env);
  const ready = readyProviders(registry, config, ctx.env);
  const listed = values.all ? catalog.list() : catalog.list().filter((m) => ready.has(m.provider));
  const models = listed.sort((a, b) => a.provider.localeCompare(b.provider) || a.id.localeCompare(b.id));
  if (values.json) {
    ctx.io.out(`${JSON.stringify(models, null, 2)}\n`);
    return 0;
  }
  const s = styleFor(ctx.term);
  const virtual = registry.virtualModelNames().map((v) => [s.cyan(v.model), v.strategy, v.description ?? ""]);
  ctx.io.out(renderTable([{ title: "VIRTUAL MODEL" }, { title: "STRATEGY" }, { title: "DESCRIPTION" }], virtual, s));
  ctx.io.out("\n");
  ctx.io.out(modelTable(models, values.all === true, ready, s));
  const scope = values.all ? "" : " with a key; --all adds the providers without one";
  ctx.io.out(s.dim(`${models.length} models${scope}; prices in USD per million tokens\n`));
  return 0;
}

function modelTable(models: ModelInfo[], all: boolean, ready: Set<string>, s: Style): string {
  const columns = [
    { title: "MODEL" },
    { title: "PROVIDER" },
    { title: "TIER" },
    { title: "INPUT $/M", align: "right" as const },
    { title: "OUTPUT $/M", align: "right" as const },
    { title: "CONTEXT", align: "right" as const },
    ...(all ? [{ title: "ROUTABLE" }, { title: "KEY" }] : []),
    { title: "ALIASES" },
  ];
  const yesNo = (b: boolean) => (b ? "yes" : s.dim("no"));
  const rows = models.map((m) => [
    s.cyan(m.id),
    m.provider,
    m.tier ?? "",
    price(m.price?.input),
    price(m.price?.output),
    m.contextWindow ? m.contextWindow.toLocaleString("en-US") : "",
    ...(all ? [yesNo(m.routable), yesNo(ready.has(m.provider))] : []),
    s.dim(m.aliases.join(", ")),
  ]);
  return renderTable(columns, rows, s);
}

const price = (usd: number | undefined): string => (usd === undefined ? "?" : String(Number(usd.toFixed(4))));
