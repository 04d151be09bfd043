// Every attack of the outside probe (issue 34), one named test each, grouped
// by what they go after. Prints `attacks tried: N, succeeded: N` at the end.
import { afterAll } from "bun:test";
import { tally } from "./attacks/tally.ts";
import "./attacks/browser.ts";
import "./attacks/config-patch.ts";
import "./attacks/secrets.ts";
import "./attacks/streams.ts";
import "./attacks/budgets.ts";
import "./attacks/bad-names.ts";
import "./attacks/vendor-failures.ts";

afterAll(() => {
  console.log(`attacks tried: ${tally.tried}, succeeded: ${tally.succeeded}`);
  if (tally.names.length) console.log(`attacks that got through: ${tally.names.join("; ")}`);
});
