// `relay models`: the catalog this configuration routes over, with prices.
import { Catalog } from "../../core/catalog/catalog.ts";
import { parseFlags } from "../args.ts";
import { renderTable, styleFor } from "../output.ts";
import { CONFIG_FLAGS, type CommandContext, loadCommandConfig, printCommandHelp } from "./context.ts";

const FLAGS = { ...CONFIG_FLAGS, json: { type: "boolean" }, all: { type: "boolean" } } as const;

export async function modelsCommand(args: string[], ctx: CommandContext): Promise<number> {
  const { values } = parseFlags(args, FLAGS, "models");
  if (values.help) return printCommandHelp(ctx);
  const { config } = loadCommandConfig(values, ctx.env);
  const catalog = new Catalog({ overrides: config.models });
  const models = (values.all ? catalog.list() : [...catalog.routableModels()]).sort((a, b) => a.provider.localeCompare(b.provider) || a.id.localeCompare(b.id));
  if (values.json) {
    ctx.io.out(`${JSON.stringify(models, null, 2)}\n`);
    return 0;
  }
  const s = styleFor(ctx.term);
  const columns = [
    { title: "MODEL" },
    { title: "PROVIDER" },
    { title: "TIER" },
    { title: "INPUT $/M", align: "right" as const },
    { title: "OUTPUT $/M", align: "right" as const },
    { title: "CONTEXT", align: "right" as const },
    ...(values.all ? [{ title: "ROUTABLE" }] : []),
    { title: "ALIASES" },
  ];
  const rows = models.map((m) => [
    s.cyan(m.id),
    m.provider,
    m.tier ?? "",
    price(m.price?.input),
    price(m.price?.output),
    m.contextWindow ? m.contextWindow.toLocaleString("en-US") : "",
    ...(values.all ? [m.routable ? "yes" : s.dim("no")] : []),
    s.dim(m.aliases.join(", ")),
  ]);
  ctx.io.out(renderTable(columns, rows, s));
  ctx.io.out(s.dim(`${models.length} models; prices in USD per million tokens${values.all ? "" : "; --all includes models that are not routed to"}\n`));
  return 0;
}

const price = (usd: number | undefined): string => (usd === undefined ? "?" : String(Number(usd.toFixed(4))));
