// Plugin files for the binary/source tests: three good plugins (a TypeScript
// strategy, a TypeScript replacement of the built-in `fallback` and a
// JavaScript provider with its own model-name pattern) and two broken ones,
// written into a plugins folder exactly as a user would drop them there.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const STRATEGY_NAME = "myplugin";
export const VIRTUAL_MODEL = "svc:myplugin";
/** The concrete model the strategy routes every request to. */
export const STRATEGY_TARGET = "claude-haiku-4-5";
export const PROVIDER_NAME = "echo-compat";
export const PROVIDER_MODEL = "echo-1";
export const PROVIDER_BASE_URL_ENV = "ECHO_COMPAT_BASE_URL";
/** Bare names the provider claims by its pattern (`echo-*`), though it lists none of them. */
export const PATTERN_MODEL = "echo-large-2";
/** The user's `fallback` marks its plans with this reason. */
export const FALLBACK_REASON = "user fallback";
export const INIT_ERROR = "plugin init exploded on purpose";

const STRATEGY_TS = `import { definePlugin, type RoutePlan, type RouteInput, type StrategyContext } from "relay/plugin";

interface Options { target?: string }

export default definePlugin({
  kind: "strategy",
  name: "${STRATEGY_NAME}",
  description: "routes everything to one model",
  models: ["${VIRTUAL_MODEL}"],
  plan(input: RouteInput, ctx: StrategyContext): RoutePlan {
    const options = ctx.options as Options;
    const target: string = options.target ?? "${STRATEGY_TARGET}";
    return { candidates: [target], mode: "fallback", reasons: [\`plugin chose \${target} for \${input.requestedModel}\`] };
  },
});
`;

// Replaces the built-in by name and declares the role itself: a replacement inherits nothing.
const FALLBACK_TS = `import { definePlugin, type RoutePlan, type RouteInput, type StrategyContext } from "relay/plugin";

export default definePlugin({
  kind: "strategy",
  name: "fallback",
  servesConcreteModels: true,
  plan(input: RouteInput, ctx: StrategyContext): RoutePlan {
    const model = ctx.catalog.resolve(input.requestedModel);
    const cooling = model ? ctx.health.model(model).coolingDown : false;
    return { candidates: [input.requestedModel], mode: "fallback", reasons: ["${FALLBACK_REASON}", \`cooling down: \${cooling}\`] };
  },
});
`;

const PROVIDER_JS = `import { definePlugin } from "relay/plugin";

export default definePlugin({
  kind: "provider",
  name: "${PROVIDER_NAME}",
  format: "openai",
  baseUrl: "http://127.0.0.1:9/v1",
  baseUrlEnv: ["${PROVIDER_BASE_URL_ENV}"],
  request: (ctx) => ({ url: ctx.baseUrl + "/chat/completions", headers: { "content-type": "application/json" } }),
  modelPatterns: ["echo-*"],
  models: [{
    id: "${PROVIDER_MODEL}",
    provider: "${PROVIDER_NAME}",
    aliases: [],
    capabilities: { tools: true, vision: false, json: true, reasoning: false, streaming: true },
    routable: false,
  }],
});
`;

export const FILES = {
  strategy: "my-strategy.ts",
  fallback: "my-fallback.ts",
  provider: "echo-provider.js",
  syntaxError: "broken-syntax.ts",
  throwsOnInit: "throws-on-init.js",
};

export function writePlugins(dir: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, FILES.strategy), STRATEGY_TS);
  writeFileSync(join(dir, FILES.fallback), FALLBACK_TS);
  writeFileSync(join(dir, FILES.provider), PROVIDER_JS);
  writeFileSync(join(dir, FILES.syntaxError), "export default {{ kind: 'strategy', name: \n");
  writeFileSync(join(dir, FILES.throwsOnInit), `throw new Error(${JSON.stringify(INIT_ERROR)});\nexport default {};\n`);
}
