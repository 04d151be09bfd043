#!/usr/bin/env bun
// Entry point of the single executable.
import { main } from "./cli/main.ts";
import { scrubSecrets } from "./core/secrets/known.ts";
import { writeAllSync } from "./runtime/fs.ts";

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e) => {
    writeAllSync(2, scrubSecrets(`relay: ${(e as Error)?.message ?? e}\n`));
    process.exit(1);
  },
);
