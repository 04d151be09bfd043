// bench/ drives Relay only through its public entry points: the CLI (`src/server.ts`, or the
// compiled binary) over HTTP, and src/index.ts in-process. Any other module under src/ may move in
// a refactor, so a bench that imports one breaks with it. This fails when a file under bench/, or a
// helper outside src/ that a bench file imports (tests/fakes, tests/cli), imports a module under
// src/ other than src/index.ts, imports something it cannot name (a computed `import()` or
// `require()`), or names a path under src/ other than the two entry points (a spawned module).
import { expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { SOURCE, filesUnder, importsOf } from "../helpers/imports.ts";

const ROOT = resolve(import.meta.dir, "../..");
const BENCH = join(ROOT, "bench");
const PUBLIC_MODULES = new Set(["src/index.ts"]);
const ENTRY_PATHS = new Set(["src/server.ts", "src/index.ts"]);
/** A path under src/ written from the repository root (relative specifiers are resolved above instead). */
const SRC_PATH = /(?<![\w./])src\/[\w./-]+\.[cm]?[jt]sx?\b/g;

/** Paths under src/ named in code (not comments), e.g. a module spawned with `bun src/….ts`. */
const srcPathsIn = (text: string): string[] =>
  text
    .split("\n")
    .filter((line) => !/^\s*(\/\/|\*|\/\*)/.test(line))
    .flatMap((line) => line.match(SRC_PATH) ?? []);

/** Every way the bench files (and the helpers they reach outside src/) cross the boundary, as "file: what". */
function violations(): string[] {
  const found: string[] = [];
  const queue = filesUnder(BENCH);
  const seen = new Set(queue);
  while (queue.length > 0) {
    const file = queue.shift()!;
    const name = relative(ROOT, file);
    const text = readFileSync(file, "utf8");
    const { specifiers, unnamed } = importsOf(text);
    for (const call of unnamed) found.push(`${name}: ${call} (an import the check cannot name)`);
    for (const path of srcPathsIn(text)) if (!ENTRY_PATHS.has(path)) found.push(`${name}: names ${path}`);
    for (const spec of specifiers) {
      if (!spec.startsWith(".")) continue; // packages and node: built-ins
      const target = resolve(dirname(file), spec);
      const inRepo = relative(ROOT, target);
      if (inRepo.startsWith("src/")) {
        if (!PUBLIC_MODULES.has(inRepo)) found.push(`${name}: imports ${inRepo}`);
      } else if (!seen.has(target) && existsSync(target) && SOURCE.test(target) && !inRepo.startsWith("..")) {
        seen.add(target);
        queue.push(target);
      }
    }
  }
  return found;
}

test("bench/ imports nothing under src/ but src/index.ts, directly or through a helper", () => {
  expect(violations()).toEqual([]);
});

test("the public module exists and every bench that runs Relay in-process goes through it", () => {
  expect(existsSync(join(ROOT, "src/index.ts"))).toBe(true);
  const users = filesUnder(BENCH).filter((f) => importsOf(readFileSync(f, "utf8")).specifiers.some((s) => s.endsWith("/src/index.ts")));
  // translate.ts (codecs), routing/ (the scorer), lib/in-process.ts (startRelay): the check above saw real imports.
  expect(users.length).toBeGreaterThanOrEqual(3);
});

test("the scanner finds each form of import, and does not read comments", () => {
  const text = [
    `import { a } from "../src/core/a.ts";`,
    `import type {\n  B,\n  C,\n} from '../src/core/b.ts';`,
    `export * from "../src/c.ts";`,
    `import "../src/d.ts";`,
    `const e = await import("../src/e.ts");`,
    `const f = await import(join(root, "src", "f.ts"));`,
    `const g = require(\`../src/g.ts\`);`,
    `// import { h } from "../src/h.ts";`,
    `/* import("../src/i.ts") */`,
    `Bun.spawn([BUN, "src/store/sqlite-writer.ts"]);`,
  ].join("\n");
  const { specifiers, unnamed } = importsOf(text);
  expect(specifiers).toEqual(["../src/core/a.ts", "../src/core/b.ts", "../src/c.ts", "../src/d.ts", "../src/e.ts", "../src/g.ts"]);
  expect(unnamed).toHaveLength(1);
  expect(unnamed[0]).toStartWith("import(join(root");
  expect(srcPathsIn(text)).toEqual(["src/store/sqlite-writer.ts"]);
});
