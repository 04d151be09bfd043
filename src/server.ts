#!/usr/bin/env bun
// Entry point of the single executable.
import { main } from "./cli/main.ts";

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e) => {
    process.stderr.write(`relay: ${(e as Error)?.message ?? e}\n`);
    process.exit(1);
  },
);
