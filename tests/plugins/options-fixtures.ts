// User strategy plugins that declare an options schema, one in TypeBox (from `relay/plugin`, no
// node_modules) and one in hand-written JSON Schema, written into a plugins folder as a user would.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** Routes `svc:pinned` to `options.target`; TypeBox schema. */
const PINNED_TS = `import { definePlugin, Type, type Static, type StrategyContext } from "relay/plugin";

const Options = Type.Object({ target: Type.String({ minLength: 1 }), note: Type.Optional(Type.String()) }, { additionalProperties: false });

export default definePlugin({
  kind: "strategy",
  name: "pinned",
  models: ["svc:pinned"],
  options: Options,
  plan(input, ctx: StrategyContext<Static<typeof Options>>) {
    return { candidates: [ctx.options.target], mode: "fallback", reasons: ["pinned to " + ctx.options.target] };
  },
});
`;

/** Routes `svc:pinned-json` to `options.target`; hand-written JSON Schema. */
const PINNED_JSON_JS = `import { definePlugin } from "relay/plugin";

export default definePlugin({
  kind: "strategy",
  name: "pinned-json",
  models: ["svc:pinned-json"],
  options: {
    type: "object",
    properties: { target: { type: "string", minLength: 1 }, speed: { enum: ["fast", "slow"] } },
    required: ["target"],
    additionalProperties: false,
  },
  plan(input, ctx) {
    return { candidates: [ctx.options.target], mode: "fallback", reasons: ["pinned to " + ctx.options.target] };
  },
});
`;

/** Replaces the built-in cascade with options the built-in does not know (`style`). */
const CASCADE_REPLACEMENT_JS = `import { definePlugin, Type } from "relay/plugin";

export default definePlugin({
  kind: "strategy",
  name: "cascade",
  models: ["svc:cascade"],
  // The built-in's default options (chain, maxEscalations) are merged under the user's: accept them.
  options: Type.Object({ style: Type.String(), chain: Type.Optional(Type.Array(Type.String())), maxEscalations: Type.Optional(Type.Integer()) }),
  plan: () => ({ candidates: ["claude-haiku-4-5"], mode: "fallback", reasons: ["replacement cascade"] }),
});
`;

/** A oneOf schema: enforced, where the hand-written converter used to refuse it. */
const ONE_OF_JS = `import { definePlugin } from "relay/plugin";

export default definePlugin({
  kind: "strategy",
  name: "one-of",
  options: { type: "object", properties: { mode: { oneOf: [{ type: "string" }, { type: "number" }] } } },
  plan: () => ({ candidates: [], mode: "fallback", reasons: [] }),
});
`;

/** A $ref that does not resolve within the schema: the validator would throw on the first check, so the load fails. */
const DANGLING_REF_JS = `import { definePlugin } from "relay/plugin";

export default definePlugin({
  kind: "strategy",
  name: "dangling",
  options: { type: "object", properties: { mode: { $ref: "#/$defs/mode" } } },
  plan: () => ({ candidates: [], mode: "fallback", reasons: [] }),
});
`;

export const OPTION_PLUGINS = {
  pinned: ["pinned.ts", PINNED_TS],
  pinnedJson: ["pinned-json.js", PINNED_JSON_JS],
  cascadeReplacement: ["cascade.js", CASCADE_REPLACEMENT_JS],
  oneOf: ["one-of.js", ONE_OF_JS],
  danglingRef: ["dangling.js", DANGLING_REF_JS],
} as const;

export function writeOptionPlugins(dir: string, which: Array<keyof typeof OPTION_PLUGINS>): void {
  mkdirSync(dir, { recursive: true });
  for (const key of which) {
    const [name, text] = OPTION_PLUGINS[key];
    writeFileSync(join(dir, name), text);
  }
}
