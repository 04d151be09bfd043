// Strategy options (`routing.strategies.<name>`) are checked against the schema each strategy
// plugin declares wherever a configuration or a set of plugins comes into force: at start, on
// config reload, on POST /control/config and on plugin reload. A request never meets options that
// failed, so a bad option is refused where it was written instead of failing every request.
import type { Validator } from "@cfworker/json-schema";
import type { StrategyPlugin } from "./api.ts";
import type { FailedPlugin, LoadedPlugin } from "./host.ts";
import { compileSchema, firstProblem } from "./options-schema.ts";
import type { Registry } from "./registry.ts";

export interface OptionsProblem {
  /** Dotted config path of the offending value, e.g. `routing.strategies.cascade.chain`. */
  path: string;
  message: string;
}

export const describeProblem = (p: OptionsProblem): string => `${p.path}: ${p.message}`;

type StrategyOptions = Record<string, Record<string, unknown>>;

// Keyed by the declared schema: compiled once per plugin load, not per check.
const validators = new WeakMap<object, Validator>();

/** The validator for the plugin's options schema; throws a TypeError on a schema Relay cannot check. */
export function optionsValidator(plugin: StrategyPlugin): Validator | undefined {
  const declared: unknown = plugin.options;
  if (declared === undefined) return undefined;
  // A boolean schema costs nothing to build; any other non-object throws.
  if (typeof declared !== "object" || declared === null) return compile(plugin, declared);
  let validator = validators.get(declared);
  if (!validator) validators.set(declared, (validator = compile(plugin, declared)));
  return validator;
}

function compile(plugin: StrategyPlugin, declared: unknown): Validator {
  try {
    return compileSchema(declared);
  } catch (e) {
    throw new TypeError(`strategy "${plugin.name}": options schema ${(e as Error).message}`);
  }
}

/** The options a strategy is handed for `name` (an own property only: `constructor` is no strategy's options). */
const configuredOptions = (strategies: StrategyOptions, name: string): Record<string, unknown> =>
  Object.hasOwn(strategies, name) ? strategies[name]! : {};

/** The first problem with a strategy's options (schema first, then the plugin's own checkOptions), or undefined. */
export function strategyOptionsProblem(plugin: StrategyPlugin, options: Record<string, unknown>): OptionsProblem | undefined {
  const at = `routing.strategies.${plugin.name}`;
  const validator = optionsValidator(plugin);
  const problem = validator && firstProblem(validator, options);
  if (problem) return { path: at + dotted(problem.at), message: problem.message };
  let message: string | undefined;
  try {
    message = plugin.checkOptions?.(options);
  } catch (e) {
    message = (e as Error)?.message ?? String(e);
  }
  return message ? { path: at, message } : undefined;
}

/** Every loaded strategy's options checked (`{}` for one with none configured), and the configured names no strategy has. */
export function checkStrategyOptions(strategies: StrategyOptions, registry: Registry): { problems: OptionsProblem[]; unused: string[] } {
  const problems: OptionsProblem[] = [];
  for (const plugin of registry.strategies.values()) {
    const problem = strategyOptionsProblem(plugin, configuredOptions(strategies, plugin.name));
    if (problem) problems.push(problem);
  }
  const unused = Object.keys(strategies).filter((name) => !registry.strategies.has(name));
  return { problems, unused };
}

/** Leaves out, as failed with the reason, the loaded strategy plugins whose configured options fail their schema. */
export function vetPluginOptions(
  result: { loaded: LoadedPlugin[]; failed: FailedPlugin[] },
  strategies: StrategyOptions,
): { loaded: LoadedPlugin[]; failed: FailedPlugin[]; refused: string[] } {
  const failed = [...result.failed];
  const refused: string[] = [];
  const loaded = result.loaded.filter(({ file, plugin }) => {
    const problem = plugin.kind === "strategy" ? strategyOptionsProblem(plugin, configuredOptions(strategies, plugin.name)) : undefined;
    if (!problem) return true;
    refused.push(describeProblem(problem));
    failed.push({ file, error: `invalid options: ${describeProblem(problem)}` });
    return false;
  });
  return { loaded, failed, refused };
}

/**
 * What a config patch may not leave behind: any invalid options, and options it sets for a name no
 * loaded strategy has (likely a typo; such options would sit unused). Options already in the file for
 * a strategy that is not loaded now (its plugin failed, say) do not block unrelated patches.
 */
export function patchOptionsProblems(strategies: StrategyOptions, registry: Registry, patch: Record<string, unknown>): OptionsProblem[] {
  const { problems, unused } = checkStrategyOptions(strategies, registry);
  const patched = (patch.routing as { strategies?: unknown } | undefined)?.strategies;
  if (typeof patched !== "object" || patched === null) return problems;
  for (const name of unused) {
    if (Object.hasOwn(patched, name) && (patched as Record<string, unknown>)[name] !== null) {
      problems.push({ path: `routing.strategies.${name}`, message: `no strategy plugin named "${name}" is loaded` });
    }
  }
  return problems;
}

/** Path segments as a config path: `chains`, `gpt-4.1`, `0` → `.chains["gpt-4.1"][0]`. */
function dotted(segments: string[]): string {
  let out = "";
  for (const seg of segments) out += /^\d+$/.test(seg) ? `[${seg}]` : /^[A-Za-z_][\w-]*$/.test(seg) ? `.${seg}` : `[${JSON.stringify(seg)}]`;
  return out;
}
