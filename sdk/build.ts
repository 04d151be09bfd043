// Builds the package: dist/index.js, sdk/src/index.ts bundled for Node (ESM, no imports left: the
// routing core, the run engine and their libraries are inside), and dist/index.d.ts, the declarations
// written by hand in types/index.d.ts (tests/sdk/types.ts holds them to the code). Run: bun sdk/build.ts
import { copyFileSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";

const SDK = import.meta.dir;
const DIST = join(SDK, "dist");

rmSync(DIST, { recursive: true, force: true });
mkdirSync(DIST);
const built = await Bun.build({ entrypoints: [join(SDK, "src/index.ts")], target: "node", format: "esm", outdir: DIST, naming: "index.js" });
if (!built.success) throw new AggregateError(built.logs, "bundling sdk/src/index.ts failed");
copyFileSync(join(SDK, "types/index.d.ts"), join(DIST, "index.d.ts"));
