import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { configJsonSchema, withTable } from "../../scripts/config-docs.ts";

const root = join(import.meta.dir, "../..");

test("schema/config.schema.json is generated from the TypeBox schema (run `bun run gen:config`)", () => {
  expect(readFileSync(join(root, "schema/config.schema.json"), "utf8")).toBe(configJsonSchema());
});

test("the README configuration table is generated from the TypeBox schema (run `bun run gen:config`)", () => {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  expect(withTable(readme)).toBe(readme);
});
