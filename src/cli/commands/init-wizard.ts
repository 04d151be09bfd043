// The interactive side of `relay init`: one question per setting, the current
// choice in brackets (Enter keeps it), and the question again after a bad answer.
import { createInterface } from "node:readline";
import type { Catalog } from "../../core/catalog/catalog.ts";
import { UsageError } from "../args.ts";
import type { Style } from "../output.ts";
import { type DetectedKey, type InitAnswers, TIERS, requireModel } from "./init-plan.ts";
import { portNumber, usd } from "./values.ts";

/** The operator ended the wizard (Ctrl-C or Ctrl-D). */
export class WizardCancelled extends Error {
  override name = "WizardCancelled";
}

export interface Prompter {
  ask(question: string): Promise<string>;
  close(): void;
}

export function terminalPrompter(input: NodeJS.ReadableStream, output: NodeJS.WritableStream): Prompter {
  const rl = createInterface({ input, output });
  // Lines typed (or pasted) before their question are queued, not lost.
  const typedAhead: string[] = [];
  let waiting: { resolve(line: string): void; reject(e: Error): void } | undefined;
  let closed = false;
  rl.on("line", (line) => {
    if (!waiting) return void typedAhead.push(line);
    const w = waiting;
    waiting = undefined;
    w.resolve(line);
  });
  // Ctrl-D closes the input and Ctrl-C closes it too: either cancels the pending question.
  rl.on("close", () => {
    closed = true;
    waiting?.reject(new WizardCancelled());
    waiting = undefined;
  });
  rl.on("SIGINT", () => rl.close());
  return {
    ask(question) {
      rl.setPrompt(question);
      rl.prompt();
      if (typedAhead.length) return Promise.resolve(typedAhead.shift()!);
      if (closed) return Promise.reject(new WizardCancelled());
      return new Promise((resolve, reject) => (waiting = { resolve, reject }));
    },
    close: () => rl.close(),
  };
}

/** Ask until `parse` accepts the answer; an empty answer keeps `current`. */
async function askValid<T>(p: Prompter, out: (s: string) => void, question: string, current: string, parse: (answer: string) => T): Promise<T> {
  for (;;) {
    const answer = (await p.ask(`${question} [${current}]: `)).trim() || current;
    try {
      return parse(answer);
    } catch (e) {
      if (!(e instanceof UsageError)) throw e;
      out(`  ${e.message}\n`);
    }
  }
}

export async function confirm(p: Prompter, question: string, current: boolean): Promise<boolean> {
  for (;;) {
    const answer = (await p.ask(`${question} [${current ? "Y/n" : "y/N"}]: `)).trim().toLowerCase();
    if (!answer) return current;
    if (answer === "y" || answer === "yes") return true;
    if (answer === "n" || answer === "no") return false;
  }
}

export interface WizardContext {
  prompter: Prompter;
  catalog: Catalog;
  detected: DetectedKey[];
  out(s: string): void;
  style: Style;
}

export async function runWizard(w: WizardContext, start: InitAnswers): Promise<InitAnswers> {
  const { prompter: p, out, style: s } = w;
  out(`${s.bold("Relay setup")}\n`);
  if (w.detected.length) {
    out(`Provider keys found in the environment: ${w.detected.map((d) => `${d.provider} (${d.envName})`).join(", ")}\n`);
  } else {
    out(`${s.yellow("No provider keys found in the environment; set e.g. ANTHROPIC_API_KEY or OPENAI_API_KEY before 'relay start'.")}\n`);
  }
  out(`${s.dim("Press Enter to keep the value in brackets. 'relay models' lists the models.")}\n\n`);
  const tiers = { ...start.tiers };
  for (const tier of TIERS) {
    tiers[tier] = await askValid(p, out, `Model for ${tier} requests`, tiers[tier], (v) => requireModel(w.catalog, v, tier));
  }
  const dailyUsd = await askValid(p, out, "Daily budget in USD (0 = none)", String(start.dailyUsd), (v) => usd(v, "daily budget"));
  const hourlyUsd = await askValid(p, out, "Hourly budget in USD (0 = none)", String(start.hourlyUsd), (v) => usd(v, "hourly budget"));
  const port = await askValid(p, out, "Port", String(start.port), (v) => portNumber(v, "port"));
  const saveKeys = w.detected.length
    ? await confirm(p, "Write the detected keys into the config file? (otherwise Relay reads them from the environment)", start.saveKeys)
    : false;
  return { ...start, tiers, dailyUsd, hourlyUsd, port, saveKeys };
}
