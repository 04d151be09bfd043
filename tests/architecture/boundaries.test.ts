// Layers that read right (issue 35, item 5). The core and the plugins must run anywhere (Node, Bun,
// Deno, bundled into the SDK), so they, and whatever they import, reach the platform only through
// src/runtime and the store's interfaces; each surface must be removable, so no surface reaches
// into another. This reads every
// file's imports from its text (type-only ones included: a type import still ties the layers) and
// prints each crossing as `file → imported`, so a failure says what to move.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { posix, relative, resolve } from "node:path";
import { codeOf, filesUnder, importsOf } from "../helpers/imports.ts";

const ROOT = resolve(import.meta.dir, "../..");

/** Layers that must run on any JavaScript runtime: no surface, no store implementation, no Bun API. */
const PORTABLE = ["src/core/", "src/strategies/", "src/providers/"];
/** Plugins see the public plugin API, the core and src/runtime, as a user's plugin does. */
const PLUGINS = ["src/strategies/", "src/providers/"];
const PLUGIN_REACH = ["src/plugin/api.ts", "src/core/", "src/runtime/"];
/** The store modules the portable layers may name: the interfaces (the Store's, and each aggregate's in its folder). */
const isStoreInterface = (path: string) => /^src\/store\/(?:[^/]+\/)?types\.ts$/.test(path);
/** Folders of src/surfaces/ that are shared plumbing, not a surface (the OpenAPI operation descriptions; the browser pages' stylesheet, helpers and markup). */
const SHARED_SURFACE_FOLDERS = new Set(["openapi", "web"]);
/** Mounts every surface: the one plumbing module that may name them. */
const COMPOSITION_ROOT = "src/surfaces/index.ts";
/** Package aliases resolved to files (tsconfig.json "paths"). */
const ALIASES: Record<string, string> = { "relay/plugin": "src/plugin/api.ts" };

interface Source {
  path: string; // relative to the repository root, with "/"
  text: string;
}

const under = (path: string, prefixes: string[]) => prefixes.some((p) => path.startsWith(p));

/** The surface folder a file belongs to, or undefined for shared plumbing and files outside src/surfaces/. */
function surfaceOf(path: string): string | undefined {
  const m = /^src\/surfaces\/([^/]+)\//.exec(path);
  return m && !SHARED_SURFACE_FOLDERS.has(m[1]!) ? m[1] : undefined;
}

/** A specifier as a repository path (relative ones resolved, aliases mapped), or as written for packages. */
function targetOf(from: string, spec: string): string {
  if (spec.startsWith(".")) return posix.normalize(posix.join(posix.dirname(from), spec));
  return ALIASES[spec] ?? spec;
}

/** Uses of the `Bun` global in code (comments and string contents blanked), as `Bun.member`. */
function bunGlobals(text: string): string[] {
  const code = codeOf(text, false);
  return [...code.matchAll(/(?<![\w$]|(?<!globalThis\s*)\.)Bun\b(?:\s*\??\.\s*([\w$]+))?/g)].map((m) => (m[1] ? `Bun.${m[1]}` : "Bun"));
}

/** Why `target`, imported by `file`, crosses a boundary; undefined when it does not. `portable`: `file` must run anywhere. */
function crossing(file: string, spec: string, target: string, portable: boolean): string | undefined {
  if (portable) {
    if (spec === "bun" || spec.startsWith("bun:")) return "a Bun module outside src/runtime";
    if (target.startsWith("src/surfaces/")) return "a surface";
    if (target.startsWith("src/store/") && !isStoreInterface(target)) return "a store implementation";
  }
  if (under(file, PLUGINS) && target.startsWith("src/")) {
    const own = PLUGINS.find((p) => file.startsWith(p))!;
    if (!target.startsWith(own) && !under(target, PLUGIN_REACH)) return "neither the plugin API, the core nor src/runtime";
  }
  const to = surfaceOf(target);
  if (to === undefined) return undefined;
  const from = surfaceOf(file);
  if (from !== undefined && from !== to) return "another surface";
  if (from === undefined && file.startsWith("src/surfaces/") && file !== COMPOSITION_ROOT) return "a surface, from shared plumbing";
  return undefined;
}

/**
 * The portable layers' files and every module they reach, stopping at src/runtime (the seam a
 * Deno or Node build replaces): a bundle of the core holds all of these, so all must run anywhere.
 * Maps each to the portable file it is first reached from.
 */
function portableReach(targets: Map<string, string[]>): Map<string, string> {
  const reach = new Map<string, string>();
  const queue = [...targets.keys()].filter((path) => under(path, PORTABLE)).map((path) => [path, path] as const);
  for (const [path, root] of queue) {
    if (reach.has(path)) continue;
    reach.set(path, root);
    for (const target of targets.get(path) ?? []) {
      const file = [target, `${target}.ts`, `${target}.tsx`].find((t) => targets.has(t));
      // Past a crossing already reported (a surface, a store implementation) the walk would only repeat it.
      const crossed = file?.startsWith("src/surfaces/") || (file?.startsWith("src/store/") && !isStoreInterface(file));
      if (file && !file.startsWith("src/runtime/") && !crossed) queue.push([file, root]);
    }
  }
  return reach;
}

/** Every boundary crossing in `files`, as "file → imported (why)". */
function violations(files: Source[]): string[] {
  const found: string[] = [];
  const scanned = files.map(({ path, text }) => ({ path, text, ...importsOf(text) }));
  const reach = portableReach(new Map(scanned.map((f) => [f.path, f.specifiers.map((s) => targetOf(f.path, s))])));
  for (const { path, text, specifiers, unnamed } of scanned) {
    const root = reach.get(path);
    const note = root && root !== path ? `, reached from ${root}` : "";
    for (const spec of specifiers) {
      const target = targetOf(path, spec);
      const why = crossing(path, spec, target, root !== undefined);
      if (why) found.push(`${path} → ${target} (${why}${note})`);
    }
    if (root === undefined) continue;
    for (const use of bunGlobals(text)) found.push(`${path} → ${use} (a Bun API outside src/runtime${note})`);
    // In the layers themselves only: what they reach may load a user's plugin file by its path.
    if (under(path, PORTABLE)) for (const call of unnamed) found.push(`${path} → ${call} (an import the check cannot name)`);
    if (/^\s*\/\/\/\s*<reference\s+types=["']bun/m.test(text)) found.push(`${path} → bun types (a Bun API outside src/runtime${note})`);
  }
  return found;
}

function sourceTree(): Source[] {
  return filesUnder(resolve(ROOT, "src")).map((file) => ({ path: relative(ROOT, file).split("\\").join("/"), text: readFileSync(file, "utf8") }));
}

describe("import boundaries", () => {
  const tree = sourceTree();

  test("the core, the strategies and the providers import no surface, no store implementation and no Bun API; no surface imports another", () => {
    expect(violations(tree)).toEqual([]);
  });

  test("the check sees the tree it guards: each layer has files and the six surfaces are there", () => {
    for (const layer of PORTABLE) expect(tree.filter((f) => f.path.startsWith(layer)).length).toBeGreaterThan(0);
    const surfaces = new Set(tree.map((f) => surfaceOf(f.path)).filter((s) => s !== undefined));
    for (const s of ["proxy", "control", "dashboard", "telemetry", "cloud", "docs"]) expect(surfaces.has(s)).toBe(true);
    const openapi = tree.filter((f) => f.path.startsWith("src/surfaces/openapi/"));
    expect(openapi.length).toBeGreaterThan(0);
    // The surfaces really share the descriptions: the check above then holds them to the shared rule.
    expect(tree.filter((f) => surfaceOf(f.path) && importsOf(f.text).specifiers.some((s) => s.includes("/openapi/"))).length).toBeGreaterThanOrEqual(6);
  });
});

describe("the check itself", () => {
  test("it reports each kind of crossing, in each form of import, and nothing in comments or strings", () => {
    const files: Source[] = [
      {
        path: "src/core/router/a.ts",
        text: [
          `import { CoreError } from "../../surfaces/http.ts";`,
          `import type {\n  RedisClient,\n} from "bun";`,
          `export { openStore } from "../../store/sqlite.ts";`,
          `import "bun:sqlite";`,
          `const p = await import("../../surfaces/proxy/index.ts");`,
          `type T = import("../../store/postgres.ts").PgStore;`,
          `import { SqlRunLog } from "../../store/runs/sql.ts";`,
          `await Bun.sleep(1);`,
          `const s: Bun.Server = globalThis.Bun.serve({});`,
          `const w = await import(name);`,
          // Allowed: the store's interfaces, the runtime, a package, and mentions that are not code.
          `import type { RunStore } from "../../store/types.ts";`,
          `import type { RunLog } from "../../store/runs/types.ts";`,
          `import { peek } from "../../runtime/peek.ts";`,
          `import { Type } from "@sinclair/typebox";`,
          `// import { x } from "../../surfaces/http.ts"; Bun.sleep(1)`,
          `/* src/** */ const msg = "Bun.serve failed: import('../../surfaces/x.ts')"; const re = /["']Bun\\./;`,
          "const t = `${a ? `Bun.x` : 'y'} ${b}`; const c = x.Bun;",
        ].join("\n"),
      },
      { path: "src/strategies/s/index.ts", text: `import { register } from "../../plugin/registry.ts";\nimport type { Strategy } from "relay/plugin";\nimport { c } from "../../core/ir.ts";\nimport { d } from "../other/index.ts";` },
      { path: "src/providers/p.ts", text: `import { q } from "../strategies/index.ts";\nif (typeof Bun !== "undefined") q();` },
      { path: "src/surfaces/dashboard/data.ts", text: `import { health } from "../telemetry/index.ts";\nimport { errorBody } from "../http.ts";\nimport * as ops from "../openapi/dashboard.ts";` },
      { path: "src/surfaces/openapi/dashboard.ts", text: `import { ASSETS } from "../dashboard/assets.ts";` },
      { path: "src/surfaces/index.ts", text: `import { proxySurface } from "./proxy/index.ts";` },
      // What the core imports is bundled with it; src/runtime is the seam, and the rest of the tree is not held to the rule.
      { path: "src/core/b.ts", text: `import { load } from "../config/load.ts";\nimport { gc } from "../runtime/gc.ts";` },
      { path: "src/config/load.ts", text: `import { open } from "../store/sqlite.ts";\nexport const load = () => Bun.file("x");\nconst plugin = await import(file);` },
      { path: "src/runtime/gc.ts", text: `import { x } from "../cli/x.ts";\nexport const gc = () => Bun.gc(true);` },
      { path: "src/cli/x.ts", text: `import { serve } from "bun";\nimport { proxySurface } from "../surfaces/proxy/index.ts";` },
      { path: "src/surfaces/proxy/index.ts", text: `import { s } from "./stream.ts";\nimport { Bun } from "bun";` },
    ];
    expect(violations(files)).toEqual([
      "src/core/router/a.ts → src/surfaces/http.ts (a surface)",
      "src/core/router/a.ts → bun (a Bun module outside src/runtime)",
      "src/core/router/a.ts → src/store/sqlite.ts (a store implementation)",
      "src/core/router/a.ts → bun:sqlite (a Bun module outside src/runtime)",
      "src/core/router/a.ts → src/store/runs/sql.ts (a store implementation)",
      "src/core/router/a.ts → src/surfaces/proxy/index.ts (a surface)",
      "src/core/router/a.ts → src/store/postgres.ts (a store implementation)",
      "src/core/router/a.ts → Bun.sleep (a Bun API outside src/runtime)",
      "src/core/router/a.ts → Bun.Server (a Bun API outside src/runtime)",
      "src/core/router/a.ts → Bun.serve (a Bun API outside src/runtime)",
      "src/core/router/a.ts → import(name) (an import the check cannot name)",
      "src/strategies/s/index.ts → src/plugin/registry.ts (neither the plugin API, the core nor src/runtime)",
      "src/providers/p.ts → src/strategies/index.ts (neither the plugin API, the core nor src/runtime)",
      "src/providers/p.ts → Bun (a Bun API outside src/runtime)",
      "src/surfaces/dashboard/data.ts → src/surfaces/telemetry/index.ts (another surface)",
      "src/surfaces/openapi/dashboard.ts → src/surfaces/dashboard/assets.ts (a surface, from shared plumbing)",
      "src/config/load.ts → src/store/sqlite.ts (a store implementation, reached from src/core/b.ts)",
      "src/config/load.ts → Bun.file (a Bun API outside src/runtime, reached from src/core/b.ts)",
    ]);
  });

  test("the real check fails on the tree as it was before the moves (CoreError imported by the router)", () => {
    const router = sourceTree().find((f) => f.path === "src/core/router/plan.ts")!;
    const regressed = { ...router, text: `import { errorBody } from "../../surfaces/http.ts";\n${router.text}` };
    expect(violations([regressed])).toEqual(["src/core/router/plan.ts → src/surfaces/http.ts (a surface)", ...violations([router])]);
  });
});
