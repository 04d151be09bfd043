import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { configJsonSchema, withTable } from "./config-docs.ts";

const root = join(import.meta.dir, "..");
writeFileSync(join(root, "schema", "config.schema.json"), configJsonSchema());
const readme = join(root, "README.md");
writeFileSync(readme, withTable(readFileSync(readme, "utf8")));
console.log("wrote schema/config.schema.json and the README configuration table");
