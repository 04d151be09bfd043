// `relay init`: writes a starting config file. A wizard on a terminal; with
// --yes (or without a terminal) the flags and detected defaults are used as is.
import { defaults, loadConfig } from "../../config/load.ts";
import { configFile } from "../../config/paths.ts";
import { Catalog } from "../../core/catalog/catalog.ts";
import { fileExists, writeFileAtomic } from "../../runtime/fs.ts";
import { parseFlags } from "../args.ts";
import { styleFor } from "../output.ts";
import { CONFIG_FLAGS, type CommandContext, printCommandHelp } from "./context.ts";
import { type InitAnswers, configText, detectKeys, requireModel, suggestTiers } from "./init-plan.ts";
import { WizardCancelled, confirm, runWizard, terminalPrompter } from "./init-wizard.ts";
import { portNumber, usd } from "./values.ts";

const FLAGS = {
  ...CONFIG_FLAGS,
  yes: { type: "boolean", short: "y" },
  force: { type: "boolean" },
  "tier-simple": { type: "string" },
  "tier-moderate": { type: "string" },
  "tier-complex": { type: "string" },
  "daily-budget": { type: "string" },
  "hourly-budget": { type: "string" },
  port: { type: "string", short: "p" },
  host: { type: "string" },
  "save-keys": { type: "boolean" },
} as const;

export async function initCommand(args: string[], ctx: CommandContext): Promise<number> {
  const { values } = parseFlags(args, FLAGS, "init");
  if (values.help) return printCommandHelp(ctx);
  const file = configFile(ctx.env, values.config).path;
  const catalog = new Catalog();
  const detected = detectKeys(ctx.env);
  const suggested = suggestTiers(catalog, detected);
  const flagModel = (tier: "simple" | "moderate" | "complex") => {
    const v = values[`tier-${tier}`];
    return v === undefined ? suggested[tier] : requireModel(catalog, v, `--tier-${tier}`);
  };
  let answers: InitAnswers = {
    tiers: { simple: flagModel("simple"), moderate: flagModel("moderate"), complex: flagModel("complex") },
    dailyUsd: values["daily-budget"] === undefined ? 0 : usd(values["daily-budget"], "--daily-budget"),
    hourlyUsd: values["hourly-budget"] === undefined ? 0 : usd(values["hourly-budget"], "--hourly-budget"),
    port: values.port === undefined ? defaults().server.port : portNumber(values.port, "--port"),
    host: values.host,
    saveKeys: values["save-keys"] ?? false,
  };
  const s = styleFor(ctx.term);
  const out = ctx.io.out;
  const exists = fileExists(file);

  if (ctx.term.interactive && !values.yes) {
    const prompter = terminalPrompter(process.stdin, process.stdout);
    try {
      if (exists && !values.force && !(await confirm(prompter, `${file} exists. Overwrite it?`, false))) {
        out("Nothing written.\n");
        return 1;
      }
      answers = await runWizard({ prompter, catalog, detected, out, style: s }, answers);
    } catch (e) {
      if (!(e instanceof WizardCancelled)) throw e;
      out("\nSetup cancelled; nothing written.\n");
      return 1;
    } finally {
      prompter.close();
    }
  } else if (exists && !values.force) {
    ctx.io.err(`relay init: ${file} already exists; pass --force to overwrite it\n`);
    return 1;
  }

  const text = configText(answers, detected);
  // Validate exactly what will be written, on its own (the environment is not part of the file).
  loadConfig({ file, env: {}, fileText: text });
  await writeFileAtomic(file, text);

  out(`${s.green("✓")} wrote ${file}\n`);
  out(`  tiers:  simple ${answers.tiers.simple}, moderate ${answers.tiers.moderate}, complex ${answers.tiers.complex}\n`);
  out(`  budget: ${answers.dailyUsd ? `$${answers.dailyUsd}/day` : "no daily limit"}, ${answers.hourlyUsd ? `$${answers.hourlyUsd}/hour` : "no hourly limit"}\n`);
  out(`  keys:   ${keysNote(answers, detected.map((d) => d.envName))}\n`);
  out(`Next: 'relay doctor' to check the setup, then 'relay start' (port ${answers.port}).\n`);
  return 0;
}

function keysNote(a: InitAnswers, envNames: string[]): string {
  if (!envNames.length) return "none found; set a provider key (e.g. ANTHROPIC_API_KEY) in the environment";
  return a.saveKeys ? `written to the file (from ${envNames.join(", ")})` : `read from the environment at start (${envNames.join(", ")}); not written to the file`;
}
